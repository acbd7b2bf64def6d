//go:build linux

// Command fynewin is the floor under make bench's cold window: a bare Fyne
// program that shows one small window, titled "elicitray floor", holding a
// label and two buttons, and runs until its standard input ends. The time
// from its start to the X server's MapNotify for that window is what any
// Fyne window costs on the machine (the program's start, GLFW, the GL
// driver, the first frame) before anything elicitray does: no hub, no
// socket, no history, no schema. The harness runs it with the environment
// the hub gives its window process (bench/run/window.go). Linux only, as
// bench/run is (and so that vetting ./bench/... without cgo for macOS and
// Windows, make vet, does not need Fyne's cgo).
package main

import (
	"io"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("io.github.elicitray.bench-floor")
	w := a.NewWindow("elicitray floor")
	w.SetContent(container.NewVBox(
		widget.NewLabel("bench asks: a bare Fyne window"),
		container.NewHBox(widget.NewButton("Decline", nil), widget.NewButton("Submit", nil)),
	))
	w.Resize(fyne.NewSize(420, 160))
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		fyne.Do(a.Quit)
	}()
	w.ShowAndRun()
}

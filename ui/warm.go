package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// WarmUp does, before a process's first window is wanted, the work that
// window would otherwise do on its way to the screen, most of its time
// there (issue 12: a cold prompt took some 300 ms with Mesa's llvmpipe,
// 150 of them loading the OpenGL driver, 75 the fonts): the OpenGL driver
// is loaded by a hidden GLFW window, made and destroyed at once and never
// mapped, while the fonts text is measured with (the theme's, and the
// system's fallbacks indexed) load on a goroutine of their own. It returns
// when both are done, so that nothing measures text meanwhile (a font's
// glyph cache takes one goroutine at a time). For a process whose windows
// are all elicitray's (the hub's window process), called on the main
// goroutine after the app is made and before its Run: GLFW is called
// directly, on the thread Fyne's driver calls it on. Nothing it does shows:
// a driver or display that fails here fails again, with Fyne's own error,
// at the first window.
func WarmUp(a fyne.App) {
	fonts := make(chan struct{})
	go func() {
		defer close(fonts)
		// The styles a prompt's labels use (plain and bold; the first
		// also indexes the system's fonts, for runes the theme lacks).
		for _, style := range []fyne.TextStyle{{}, {Bold: true}} {
			fyne.MeasureText("elicitray", theme.TextSize(), style)
		}
	}()
	warmGL()
	<-fonts
}

// warmGL makes and destroys a hidden GLFW window with its OpenGL context:
// the driver stays loaded for the process (the display connection GLFW
// keeps holds it), and the windows Fyne makes next skip that cost. GLFW's
// window hints are set back to their defaults, which is how Fyne expects
// them (it sets its own before each window it makes). A GLFW that did not
// initialise (Fyne logged why) is left alone, and one that fails here is
// let be: the first window says what is wrong.
func warmGL() {
	defer func() { _ = recover() }() // go-gl panics on GLFW's own errors
	if glfw.Init() != nil {
		return // Fyne's driver made the first call; this one only checks
	}
	glfw.WindowHint(glfw.Visible, glfw.False)
	defer glfw.DefaultWindowHints()
	w, err := glfw.CreateWindow(1, 1, "elicitray warm-up", nil, nil)
	if err != nil || w == nil {
		return
	}
	w.Destroy()
}

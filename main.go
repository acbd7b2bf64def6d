// Command elicitray answers MCP servers' elicitations in native desktop
// windows for any host. See README.md; the program lives in package app.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/elicitray/elicitray/app"
	_ "github.com/elicitray/elicitray/app/earlylog" // before Fyne's init logs
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal asks the command to stop (a wrapper stops its
		// server in order); a second one ends the program at once.
		<-ctx.Done()
		stop()
	}()
	code := app.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

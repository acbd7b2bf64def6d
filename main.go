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
	// A host that stops reading its end of stdout must not kill the
	// wrapper with SIGPIPE (Go's default for a write to a closed fd 1):
	// writes then fail, the relay keeps reading the server so that it
	// never blocks, and the wrapper exits with the server's code. Notify,
	// not Ignore: an ignored SIGPIPE would be inherited by the server.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	code := app.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

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
	code := app.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

package app

// The commands' client of the hub, and what the wrapper and the commands
// name of the hub protocol.

import (
	"errors"
	"fmt"
	"io"

	"github.com/elicitray/elicitray/app/hubapi"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/app/wrapper"
)

// cliHub is the commands' client of the user's hub: with log set, one that
// starts a hub when none runs, saying so on log (the commands that open
// windows), else one that asks only a running hub.
func cliHub(p paths.Paths, log io.Writer) *hubapi.Client {
	if log == nil {
		return &hubapi.Client{Paths: p}
	}
	c, err := wrapper.New(p, log)
	if err != nil {
		return &hubapi.Client{Paths: p}
	}
	return c.API()
}

// cliHubErr is err with the command line's advice for a hub that did not
// answer in time.
func cliHubErr(err error) error {
	if na := (hubapi.NoAnswerError{}); errors.As(err, &na) {
		return fmt.Errorf("%v: it may be stopped or hung (`elicitray doctor` names it)", na)
	}
	return err
}

// Command relay is the bare read/write relay of `make bench` (bench/run):
// the baseline for the wrapper's added round trip. It starts the command
// after "--", copies its stdin to the command's stdin and the command's
// stdout to its stdout, line by line, and does nothing else: what any
// stdio relay costs, so that what elicitray adds on top can be told apart.
//
//	relay -- COMMAND [ARGS...]
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: relay -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(fmt.Errorf("starting %s: %w", args[0], err))
	}
	done := make(chan error, 1)
	go func() { done <- copyLines(os.Stdout, out) }()
	if err := copyLines(in, os.Stdin); err != nil {
		fail(fmt.Errorf("to %s: %w", args[0], err))
	}
	in.Close()
	if err := <-done; err != nil {
		fail(fmt.Errorf("from %s: %w", args[0], err))
	}
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.ExitCode())
		}
		fail(err)
	}
}

// copyLines copies r to w a line at a time (a line longer than the buffer
// in pieces), flushing whenever nothing more is waiting to be read, so a
// request is passed on as soon as it is whole.
func copyLines(w io.Writer, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if _, werr := bw.Write(line); werr != nil {
			return werr
		}
		if err == io.EOF {
			return bw.Flush()
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
		if br.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "relay:", err)
	os.Exit(1)
}

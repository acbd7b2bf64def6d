//go:build !linux

package bridge

import "os"

// pipeIn is the Linux fast path (pipe_linux.go); elsewhere the framer
// reads and writes.
type pipeIn struct{}

func newPipeIn(in, out *os.File) *pipeIn { return nil }

func growPipe(*os.File) {}

// pollable: only Linux has the fast path it serves.
func pollable(*os.File) (*os.File, func()) { return nil, nil }

func pipeSize(*os.File) int { return 0 }

func (p *pipeIn) tee([]byte) (int, error) { return 0, nil }
func (p *pipeIn) splice(int) (int, error) { return 0, errNoSplice }
func (p *pipeIn) drop(int) error          { return errNoSplice }
func (p *pipeIn) noSplice()               {}
func (p *pipeIn) close()                  {}

func endSocketWrite(*os.File) {}

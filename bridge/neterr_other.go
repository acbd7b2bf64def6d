//go:build !windows

package bridge

import (
	"errors"
	"syscall"
)

func connRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

func connReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

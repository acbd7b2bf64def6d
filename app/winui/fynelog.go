package winui

import (
	"io"
	"strings"
)

// fyneLog passes the standard logger's lines on to w (the hub's log),
// except Fyne's errors (fyne.LogError: the reason, its cause, where) that
// say nothing wrong to a user, whose hub.log is theirs to read (harmless).
// Any other error, of the same reason too, is passed on whole. The
// standard logger writes one line per Write, one Write at a time.
type fyneLog struct {
	w    io.Writer
	held []byte // the first line of an error that may be harmless, until its cause says
	why  string // the cause that makes the held error harmless
	drop bool   // the next "At:" line belongs to a dropped error
}

// harmless are Fyne's errors that are no news: a file dialog's favourite
// folder the desktop does not define ("this computer does not define a
// VIDEOS folder"), and a locale of C or POSIX, which Fyne cannot parse and
// takes as English anyway.
var harmless = []struct{ reason, cause string }{
	{"Getting favorite locations", "this computer does not define a "},
	{"Error parsing user locale", "language: tag is not well-formed"},
}

func (l *fyneLog) Write(p []byte) (int, error) {
	line := string(p)
	if i := strings.Index(line, "Fyne error:  "); i >= 0 {
		for _, h := range harmless {
			if strings.HasPrefix(line[i+len("Fyne error:  "):], h.reason) {
				if err := l.flush(); err != nil {
					return 0, err
				}
				l.held, l.why = append([]byte(nil), p...), h.cause
				return len(p), nil
			}
		}
	}
	switch {
	case l.held != nil && strings.Contains(line, "  Cause: "+l.why):
		l.held, l.drop = nil, true
		return len(p), nil
	case l.drop && strings.Contains(line, "  At: "):
		l.drop = false
		return len(p), nil
	}
	l.drop = false
	if err := l.flush(); err != nil {
		return 0, err
	}
	return l.w.Write(p)
}

// flush writes the held line, if any.
func (l *fyneLog) flush() error {
	if l.held == nil {
		return nil
	}
	_, err := l.w.Write(l.held)
	l.held = nil
	return err
}

package winui

import (
	"io"
	"strings"
)

// fyneLog passes the standard logger's lines on to w (the hub's log),
// except the error a file dialog logs (fyne.LogError, three lines) when the
// desktop defines no folder for one of its favourites: "Getting favorite
// locations", "Cause: this computer does not define a VIDEOS folder", and
// where. Nothing is wrong then (the dialog offers the others), and the
// hub's log is for the user to read. Any other error, favourites' included,
// is passed on whole. The standard logger writes one line per Write, one
// Write at a time.
type fyneLog struct {
	w    io.Writer
	held []byte // the first line of a favourites error, until its cause says which
	drop bool   // the next "At:" line belongs to a dropped error
}

func (l *fyneLog) Write(p []byte) (int, error) {
	line := string(p)
	switch {
	case strings.Contains(line, "Fyne error:  Getting favorite locations"):
		if err := l.flush(); err != nil {
			return 0, err
		}
		l.held = append([]byte(nil), p...)
		return len(p), nil
	case l.held != nil && strings.Contains(line, "  Cause: this computer does not define a "):
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

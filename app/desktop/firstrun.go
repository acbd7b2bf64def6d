package desktop

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/adrg/xdg"

	"github.com/elicitray/elicitray/app/autostart"
	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/ui/lang"
)

// The first-run autostart offer (issue 13: "The installed app offers it on
// first run"). The first hub of an installed elicitray asks, in a small
// window, whether to start at login; Start at login runs what
// `elicitray autostart on` runs. The answer is kept in autostartMarker, and
// the offer never comes again. A binary that is not installed (tests,
// `make demo`, a copy in the build directory) is never asked: it is not
// what a login should start.

// AutostartMarker, in the hub log's directory, holds the answer to the
// first-run offer ("yes", "not now"), or says autostart was on already.
const AutostartMarker = "asked-autostart"

// autostartOfferDue reports whether this hub asks whether to start at
// login: elicitray is installed (autostart.Installed: a launcher entry in
// the XDG data directories names this binary), the offer was never
// answered, and autostart is not on already (then it is noted as answered).
// It says in the log why it asks, and when: at once, or (later) once the
// windows it was started for are closed (offerAfterWindows).
func autostartOfferDue(p paths.Paths, later bool, log io.Writer) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return false // no XDG launcher entry tells an installed app there
	}
	marker := filepath.Join(filepath.Dir(p.HubLog), AutostartMarker)
	if _, err := os.Lstat(marker); !errors.Is(err, fs.ErrNotExist) {
		return false // answered (or unreadable: better never than twice)
	}
	t, err := autostart.Current()
	if err != nil {
		return false
	}
	entry, ok := autostart.Installed(t.Exe, append([]string{xdg.DataHome}, xdg.DataDirs...))
	if !ok {
		return false
	}
	if st, err := autostart.New().Status(t); err == nil && st.On {
		RememberAnswer(marker, "autostart was on already")
		return false
	}
	when := "asking whether to start it at login"
	if later {
		when = "it will ask whether to start it at login once the windows it was started for are closed"
	}
	fmt.Fprintf(log, "elicitray hub: the first start of the elicitray that %s names: %s (`elicitray autostart on` does the same)\n", entry, when)
	return true
}

// autostartAnswer serves the offer's answer: yes turns autostart on as
// `elicitray autostart on` does. Either way the answer is kept and the
// offer does not come again; autostart that could not be turned on is
// said in a notification, with the command that tries again.
func (w *Windows) autostartAnswer(yes bool) error {
	marker := filepath.Join(filepath.Dir(w.Paths.HubLog), AutostartMarker)
	if !yes {
		RememberAnswer(marker, "not now")
		w.logf("autostart: not now (asked once; `elicitray autostart on` turns it on)")
		return nil
	}
	RememberAnswer(marker, "yes")
	said, err := autostart.On()
	if err != nil {
		w.logf("%v", err)
		if w.Hub.Notify != nil {
			w.Hub.Notify("elicitray", lang.L("elicitray could not start itself at login: {{.Error}}. `elicitray autostart on` tries again.", map[string]any{"Error": err}))
		}
		return err
	}
	w.logf("%s", said)
	return nil
}

// RememberAnswer writes the offer's answer to marker (newMarker); one
// there already stays.
func RememberAnswer(marker, answer string) { _, _ = NewMarker(marker, answer+"\n") }

// NewMarker makes the file marker with content, a file of this user's
// (0600) made anew, never through a link, and reports whether it made it:
// false with a nil error when it was there already. O_CREATE|O_EXCL is
// what keeps links out, on every system: POSIX open(2) fails with EEXIST
// when the name is a symbolic link, whatever it points to, and Windows'
// CREATE_NEW fails on any name that exists.
func NewMarker(marker, content string) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(marker), 0o700); err != nil {
		return false, err
	}
	f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, werr := f.WriteString(content)
	if err := f.Close(); werr == nil {
		werr = err
	}
	return true, werr
}

// Package earlylog keeps package initialisation quiet. Fyne's lang package
// logs "Error parsing user locale C" from its init when the locale is C or
// POSIX, which would put a Fyne error into every host's log although the
// wrapper never shows a window. Importing this package first silences the
// standard logger during initialisation; app.Main turns it back on.
//
// It works because Go initialises packages in import-path order among those
// whose imports are ready: this package needs only the standard library, and
// fyne.io/fyne/v2/lang waits for github.com/jeandeaual/go-locale, which sorts
// after github.com/elicitray.
package earlylog

import (
	"io"
	"log"
)

func init() { log.SetOutput(io.Discard) }

package winui

import (
	"bytes"
	"log"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFyneLogDropsMissingFavourites: a file dialog's "does not define a
// VIDEOS folder", and Fyne's "Error parsing user locale C" (the new-user
// session took it for a failure), stay out of the hub's log; every other
// line, and a favourites error of another cause, reaches it whole and in
// order.
func TestFyneLogDropsMissingFavourites(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	l := log.New(&fyneLog{w: &out}, "", 0)
	l.Println("Fyne error: ", "Getting favorite locations")
	l.Println("  Cause:", "this computer does not define a VIDEOS folder")
	l.Printf("  At: %s:%d", "fyne.io/fyne/v2/dialog/file.go", 396)
	l.Println("elicitray ui: window shown")
	l.Println("Fyne error: ", "Getting favorite locations")
	l.Println("  Cause:", "permission denied")
	l.Printf("  At: %s:%d", "fyne.io/fyne/v2/dialog/file.go", 396)
	l.Println("Fyne error: ", "Error parsing user locale C")
	l.Println("  Cause:", "language: tag is not well-formed")
	l.Printf("  At: %s:%d", "fyne.io/fyne/v2/lang/locale.go", 35)
	l.Println("Fyne error: ", "Failed to open window")
	want := "elicitray ui: window shown\n" +
		"Fyne error:  Getting favorite locations\n  Cause: permission denied\n  At: fyne.io/fyne/v2/dialog/file.go:396\n" +
		"Fyne error:  Failed to open window\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("the hub's log (-want +got):\n%s", diff)
	}
}

package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/layout"
)

// formLayout stacks a prompt's fields like a VBox and keeps its MinSize
// from one change to the next. A scroll container asks its content's
// MinSize whenever it scrolls, and a form's is every field's, each label's
// measured again: 12 ms a time for 500 fields, at each Tab (the form
// scrolls to the field) and each turn of the mouse wheel (issue 10).
//
// A field changes height only when its error line comes or goes, which
// validate says (changed), or when the form is laid out anew, at another
// width (a wrapped error line) or after a theme change (another text
// size): Layout forgets the size too. Nothing else in a field changes its
// height: entries are one line, a long list has a fixed height, labels and
// help lines are set once.
type formLayout struct {
	vbox  fyne.Layout
	min   fyne.Size
	known bool
}

// changed forgets the MinSize, for the next to be measured.
func (l *formLayout) changed() { l.known = false }

// Layout lays the fields out one under the other.
func (l *formLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.known = false
	l.layout().Layout(objs, size)
}

// MinSize is the VBox's, measured once between changes.
func (l *formLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if !l.known {
		l.min, l.known = l.layout().MinSize(objs), true
	}
	return l.min
}

func (l *formLayout) layout() fyne.Layout {
	if l.vbox == nil {
		l.vbox = layout.NewVBoxLayout()
	}
	return l.vbox
}

package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// TestWheelPassTakesOnlyTheWheel: what is laid over an entry to pass the
// wheel on is nothing the drivers give any other event to (they give each
// to the topmost object that takes it): a click, a right click, a drag to
// select, the pointer's shape and the focus still reach the entry.
func TestWheelPassTakesOnlyTheWheel(t *testing.T) {
	var o fyne.CanvasObject = &wheelPass{entry: widget.NewEntry(), to: func(*fyne.ScrollEvent) {}}
	if _, ok := o.(fyne.Scrollable); !ok {
		t.Fatal("it does not take the wheel")
	}
	for what, takes := range map[string]bool{
		"clicks":         is[fyne.Tappable](o),
		"right clicks":   is[fyne.SecondaryTappable](o),
		"double clicks":  is[fyne.DoubleTappable](o),
		"drags":          is[fyne.Draggable](o),
		"the focus":      is[fyne.Focusable](o),
		"mouse buttons":  is[desktop.Mouseable](o),
		"hovering":       is[desktop.Hoverable](o),
		"the cursor":     is[desktop.Cursorable](o),
		"being disabled": is[fyne.Disableable](o),
	} {
		if takes {
			t.Errorf("it takes %s from the entry under it", what)
		}
	}
	var e fyne.CanvasObject = widget.NewEntry()
	if !is[fyne.Tappable](e) || !is[desktop.Mouseable](e) || !is[desktop.Cursorable](e) {
		t.Error("an entry takes none of these: the test tells nothing apart")
	}
}

func is[T any](o fyne.CanvasObject) bool {
	_, ok := o.(T)
	return ok
}

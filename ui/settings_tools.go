package ui

import (
	"fmt"
	"github.com/elicitray/elicitray/bridge"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/elicitray/elicitray/bridge/elicit"
	"github.com/elicitray/elicitray/chars"
	"github.com/elicitray/elicitray/ui/lang"
	"github.com/elicitray/elicitray/ui/state"
)

// The settings window's "Pinned tools" section: the tool definitions
// pinned per server (app/toolpins), each with Forget, and for a tool whose
// definition changed since, what changed and Accept the change. Both are
// done on Save, as “elicitray tools accept” and `tools forget` do them.

// toolsSection is the section's widgets and state.
type toolsSection struct {
	list           *fyne.Container
	none           *widget.Label
	pins           []state.PinnedTool
	accept, forget []state.PinnedTool
	changed        func()
}

// buildTools makes the section for s.
func (v *settingsView) buildTools(s state.ToolSettings) fyne.CanvasObject {
	sec := &toolsSection{pins: s.Pins, changed: func() { v.validate() }}
	v.tools = sec
	sec.list = container.NewVBox()
	sec.none = helpLabel(lang.L("No tools are pinned yet: a wrapped server's tools are pinned the first time it lists them."))
	for _, p := range s.Pins {
		sec.list.Add(sec.row(v.keys, p))
	}
	sec.none.Hidden = len(s.Pins) > 0
	return container.NewVBox(heading(lang.L("Pinned tools")),
		helpLabel(lang.L("What each server said of its tools the first time it listed them. When a server changes a tool, "+
			"its calls wait for your approval until you accept the change, here or with “elicitray tools accept”. "+
			"Forget a tool to pin what its server lists next.")),
		sec.none, sec.list)
}

// row is one pin's line, its change if one waits, and its buttons.
func (sec *toolsSection) row(keys *windowKeys, p state.PinnedTool) fyne.CanvasObject {
	name := fmt.Sprintf("%s: %s", bidiText(chars.CutMiddle(oneLine(visible(p.Server)), maxLabel/2)), bidiText(chars.Cut(oneLine(visible(p.Tool)), maxLabel)))
	text := name + lang.L(" — pinned {{.Date}}", map[string]any{"Date": p.Since.Local().Format(lang.L("2 Jan 2006"))})
	parts := []fyne.CanvasObject{}
	var accept *closeButton
	if p.Change != "" {
		text += lang.L(" — changed {{.Date}}: its calls wait for you", map[string]any{"Date": p.ChangedAt.Local().Format(lang.L("2 Jan 2006"))})
		if p.Warning != "" {
			warn := widget.NewLabel(p.Warning)
			warn.Wrapping = fyne.TextWrapWord
			warn.Importance = widget.DangerImportance
			parts = append(parts, warn)
		}
		change := widget.NewLabel(chars.Cut(visible(bridge.AccountSaid(p.Change, lang.User)), maxDescription))
		change.Wrapping = fyne.TextWrapWord
		parts = append(parts, change)
	}
	label := widget.NewLabel(text)
	label.Wrapping = fyne.TextWrapWord
	var box *fyne.Container
	forget := newCloseButton(keys, lang.L("Forget"), theme.DeleteIcon(), func() {
		sec.forget = append(sec.forget, p)
		sec.list.Remove(box)
		sec.none.Hidden = len(sec.forget) < len(sec.pins)
		sec.none.Refresh()
		sec.changed()
	})
	forget.Importance = widget.LowImportance
	buttons := container.NewHBox(forget)
	if p.Change != "" {
		accept = newCloseButton(keys, lang.L("Accept the change"), theme.ConfirmIcon(), func() {
			sec.accept = append(sec.accept, p)
			accept.Disable()
			label.SetText(name + lang.L(" — the change is accepted when you save"))
			sec.changed()
		})
		buttons.Add(accept)
	}
	box = container.NewVBox(append([]fyne.CanvasObject{container.NewBorder(nil, nil, nil, buttons, label)}, parts...)...)
	return box
}

// visible is server text with what draws nothing, or disguises it, shown
// as U+FFFD, as the change window shows it.
func visible(s string) string {
	out, _ := elicit.Marked(s)
	return out
}

// now is the section as the window holds it, for Save.
func (sec *toolsSection) now() state.ToolSettings {
	if sec == nil {
		return state.ToolSettings{}
	}
	left := slices.DeleteFunc(slices.Clone(sec.pins), func(p state.PinnedTool) bool {
		return slices.ContainsFunc(sec.forget, func(f state.PinnedTool) bool { return f.Server == p.Server && f.Tool == p.Tool })
	})
	return state.ToolSettings{Pins: left, Accept: sec.accept, Forget: sec.forget}
}

// snapshot is the section's state for settingsView.snapshot.
func (sec *toolsSection) snapshot() string {
	if sec == nil {
		return ""
	}
	var b strings.Builder
	for _, l := range [][]state.PinnedTool{sec.accept, sec.forget} {
		for _, p := range l {
			b.WriteString(p.Server + "\x00" + p.Tool + "\x01")
		}
		b.WriteString("\x02")
	}
	return b.String()
}

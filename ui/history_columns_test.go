package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/elicitray/elicitray/history"
)

const (
	longTool    = "create_repository_from_template_with_branch_protection"
	longMessage = "Create the repository acme/widgets-internal-tools from the template acme/go-service, " +
		"with branch protection on main and the CODEOWNERS of the platform team?"
)

// shownRow is the row widget on screen showing the record whose tool is
// tool.
func shownRow(t *testing.T, h *historyHarness, tool string) *historyRow {
	t.Helper()
	for _, r := range h.v.rowWidgets {
		if r.cells[2].Text == tool {
			return r
		}
	}
	t.Fatalf("no row on screen shows the tool %q", tool)
	return nil
}

// textWidth is how wide a cell must be to show s whole.
func textWidth(s string) float32 {
	return fyne.MeasureText(s, theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
}

// dragEdge drags the header's handle on the right edge of column col by
// dx, as a mouse would.
func dragEdge(h *historyHarness, col int, dx float32) {
	hd := h.v.header.handles[col]
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(hd).Add(fyne.NewPos(handleWidth/2, hd.Size().Height/2))
	test.Drag(h.w.Canvas(), pos, dx, 0)
}

// columnWidthsOf are the widths of row r's cells.
func columnWidthsOf(r *historyRow) []float32 {
	out := make([]float32, len(r.cells))
	for i, c := range r.cells {
		out[i] = c.Size().Width
	}
	return out
}

// TestHistoryColumnsWiden: dragging a column's edge in the header widens
// it in the header and in every row, until a tool name cut short shows
// whole; the message takes what the other columns leave, never less than
// its least width; columns wider than the table scroll sideways; a wider
// window widens the message (issue 9: Tool and Message were cut with no
// way to widen them).
func TestHistoryColumnsWiden(t *testing.T) {
	src := newFakeHistory(history.Record{ID: 1, Time: t0, Server: "github", Tool: longTool, Mode: "form",
		Message: longMessage, Action: "accept", DecidedBy: "user"})
	h := newHistoryHarness(t, src)
	const tool, message, action = 2, 3, 4
	r := shownRow(t, h, longTool)
	scroll := h.v.tableScroll
	sum := func(ws []float32) float32 {
		total := float32(0)
		for _, w := range ws {
			total += w
		}
		return total
	}
	fits := func(ws []float32) {
		t.Helper()
		if got, want := scroll.Content.Size().Width, max(sum(ws), scroll.Size().Width); got != want {
			t.Errorf("the table is %v wide, want %v (its columns, or the view when they fit)", got, want)
		}
		for i, w := range ws {
			if got := h.v.header.titles[i].Size().Width; got != w {
				t.Errorf("title %q is %v wide, its column %v", historyColumns[i].title, got, w)
			}
		}
	}
	before := columnWidthsOf(r)
	need := textWidth(longTool)
	if before[tool] >= need || before[message] >= textWidth(longMessage) {
		t.Fatalf("columns %v show %q and its message whole: the test shows nothing", before, longTool)
	}
	fits(before)

	dragEdge(h, tool, need-before[tool]+10)
	after := columnWidthsOf(r)
	if after[tool] < need {
		t.Errorf("after dragging its edge, the tool column is %v wide; %q needs %v", after[tool], longTool, need)
	}
	if want := max(before[message]-(after[tool]-before[tool]), minMessageWidth); after[message] != want {
		t.Errorf("the message column is %v wide, want %v: what the others leave, at least %v", after[message], want, float32(minMessageWidth))
	}
	for _, i := range []int{0, 1, action, 5, 6} {
		if after[i] != before[i] {
			t.Errorf("column %d went from %v to %v", i, before[i], after[i])
		}
	}
	fits(after)
	if scroll.Content.Size().Width <= scroll.Size().Width {
		t.Errorf("columns %v wide fit a table %v wide: the test shows no sideways scrolling", sum(after), scroll.Size().Width)
	}

	// The message's own edge widens it, past what is left.
	before = after
	dragEdge(h, message, textWidth(longMessage)-before[message])
	after = columnWidthsOf(r)
	if after[message] < textWidth(longMessage) || after[action] != before[action] {
		t.Errorf("dragging the message's edge: message %v → %v (needs %v), action %v → %v",
			before[message], after[message], textWidth(longMessage), before[action], after[action])
	}
	fits(after)

	// Dragged back as far as they go: the columns fit the table again.
	// The message's edge is off to the right: scrolled to, as a user would.
	scroll.ScrollToOffset(fyne.NewPos(scroll.Content.Size().Width-scroll.Size().Width, 0))
	dragEdge(h, message, -5000)
	scroll.ScrollToOffset(fyne.NewPos(0, 0))
	dragEdge(h, tool, -5000)
	before = columnWidthsOf(r)
	if before[tool] != minColumnWidth {
		t.Errorf("dragged back: the tool column is %v wide, want its least, %v", before[tool], float32(minColumnWidth))
	}
	fits(before)
	if sum(before) != scroll.Size().Width {
		t.Errorf("dragged back: columns %v wide in a table %v wide", sum(before), scroll.Size().Width)
	}

	// A wider window widens the message, and only it.
	h.w.Resize(fyne.NewSize(1800, 680))
	after = columnWidthsOf(r)
	if after[message] <= before[message] {
		t.Errorf("a wider window: the message column went from %v to %v", before[message], after[message])
	}
	for _, i := range []int{0, 1, tool, action, 5, 6} {
		if after[i] != before[i] {
			t.Errorf("a wider window changed column %d from %v to %v", i, before[i], after[i])
		}
	}
}

// TestHistoryDetailShowsWholeTool: what the table cuts, the detail pane
// shows whole: the tool and the message.
func TestHistoryDetailShowsWholeTool(t *testing.T) {
	h := showOne(t, history.Record{ID: 1, Time: t0, Server: "github", Tool: longTool, Mode: "form",
		Message: longMessage, Action: "accept", DecidedBy: "user"})
	if got := factTexts(h.v.detail)["Tool"]; got != longTool {
		t.Errorf("the detail pane's Tool says %q, want %q", got, longTool)
	}
	if got := h.v.detail.message.Text; got != longMessage {
		t.Errorf("the detail pane's message says %q, want it whole", got)
	}
}

// TestHistoryActionShowsNotDelivered (issue 25): the list says, without a
// click, that an answer never reached its server: the Action column is
// wide enough for "cancel, unsent" whole, in English and Chinese.
func TestHistoryActionShowsNotDelivered(t *testing.T) {
	for _, locale := range []string{"en_US.UTF-8", "zh_CN.UTF-8"} {
		t.Run(locale, func(t *testing.T) {
			withLocale(t, map[string]string{"LANG": locale})
			rec := history.Record{ID: 1, Time: t0, Server: "github", Tool: "deploy", Mode: "form",
				Message: "Deploy?", Action: "cancel", DecidedBy: "user", Delivery: "the server's input was already closed"}
			h := newHistoryHarness(t, newFakeHistory(rec))
			r := shownRow(t, h, "deploy")
			const action = 4
			text := actionText(&rec)
			if got, need := columnWidthsOf(r)[action], textWidth(text); got < need {
				t.Errorf("the Action column is %v wide, and %q needs %v: the mark is cut off", got, text, need)
			}
		})
	}
}

// TestHistoryColumnsFitTheWindow: at the history window's first size,
// with the detail pane beside the table, every column of the table shows
// whole, its header too, in English and Chinese: nothing is cut at the
// pane's edge until the user widens a column (a new user saw the last
// title cut to "Answered ir").
func TestHistoryColumnsFitTheWindow(t *testing.T) {
	for _, locale := range []string{"en_US.UTF-8", "zh_CN.UTF-8"} {
		t.Run(locale, func(t *testing.T) {
			withLocale(t, map[string]string{"LANG": locale})
			h := newHistoryHarness(t, newFakeHistory(history.Record{ID: 1, Time: t0, Server: "github", Tool: "deploy",
				Mode: "form", Message: "Deploy?", Action: "accept", DecidedBy: "user"}))
			scroll := h.v.tableScroll
			if got, view := scroll.Content.Size().Width, scroll.Size().Width; got > view {
				t.Errorf("the table is %v wide in a pane of %v: its last columns are cut off", got, view)
			}
			if detail := h.v.detail.content.Size().Width; detail < 0.2*1240 {
				t.Errorf("the detail pane is %v wide, less than a fifth of the window", detail)
			}
			for _, l := range h.v.header.titles {
				need := fyne.MeasureText(l.Text, theme.TextSize(), fyne.TextStyle{Bold: true}).Width + 2*theme.InnerPadding()
				if got := l.Size().Width; got < need {
					t.Errorf("the title %q is %v wide and needs %v: it is cut off", l.Text, got, need)
				}
			}
		})
	}
}

// TestHistoryColumnsFitNames: server and tool names longer than their
// columns' first widths show whole as their page loads, without dragging
// (issue 27: the Tool column was cut off); a name too long for any column
// still leaves the message its room, and a column the user dragged keeps
// the width they gave it as more pages load.
func TestHistoryColumnsFitNames(t *testing.T) {
	const server, tool = 1, 2
	src := newFakeHistory(
		history.Record{ID: 2, Time: t0, Server: "github-enterprise", Tool: "pick_environment", Mode: "form", Message: "Where?", Action: "accept", DecidedBy: "user"},
		history.Record{ID: 1, Time: t0, Server: "everything", Tool: longTool, Mode: "form", Message: "Create?", Action: "accept", DecidedBy: "user"})
	h := newHistoryHarness(t, src)
	ws := columnWidthsOf(shownRow(t, h, "pick_environment"))
	if ws[server] < textWidth("github-enterprise") || ws[tool] < textWidth("pick_environment") {
		t.Errorf("columns %v cut github-enterprise (needs %v) or pick_environment (needs %v)", ws, textWidth("github-enterprise"), textWidth("pick_environment"))
	}
	if ws[tool] > maxFitWidth {
		t.Errorf("the tool column grew to %v for %q, past %v", ws[tool], longTool, float32(maxFitWidth))
	}
	dragEdge(h, tool, -30)
	dragged := columnWidthsOf(shownRow(t, h, "pick_environment"))[tool]
	if h.v.cols.fit([]history.Record{{Tool: "an_even_longer_tool_name"}}) {
		t.Error("fit widened a column the user dragged")
	}
	if got := h.v.cols.w[tool]; got != dragged {
		t.Errorf("the dragged tool column is %v wide after fit, want %v", got, dragged)
	}
}

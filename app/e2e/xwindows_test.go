//go:build linux

package e2e

import (
	"slices"
	"strconv"
	"strings"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// elicitrayWindows lists the viewable windows on display whose title
// starts with "elicitray" or whose _NET_WM_PID is one of pids, as
// `xdotool search --onlyvisible --pid P --name '^elicitray'` does for one
// P (its conditions are joined by "or" unless --all): asked over one X
// connection of the test's own instead of a process per PID and poll.
// Titles are _NET_WM_NAME (UTF-8), else WM_NAME.
func elicitrayWindows(display string, pids []int) []string {
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil
	}
	defer c.Close()
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
		if err != nil {
			return xproto.AtomNone
		}
		return r.Atom
	}
	netName, utf8, wmPID := atom("_NET_WM_NAME"), atom("UTF8_STRING"), atom("_NET_WM_PID")
	prop := func(w xproto.Window, name, typ xproto.Atom) []byte {
		r, err := xproto.GetProperty(c, false, w, name, typ, 0, 1<<16).Reply()
		if err != nil || r == nil {
			return nil
		}
		return r.Value
	}
	var found []string
	var walk func(w xproto.Window)
	walk = func(w xproto.Window) {
		tree, err := xproto.QueryTree(c, w).Reply()
		if err != nil {
			return
		}
		for _, k := range tree.Children {
			walk(k)
			attrs, err := xproto.GetWindowAttributes(c, k).Reply()
			if err != nil || attrs.MapState != xproto.MapStateViewable {
				continue
			}
			title := prop(k, netName, utf8)
			if title == nil {
				title = prop(k, xproto.AtomWmName, xproto.AtomString)
			}
			ours := strings.HasPrefix(string(title), "elicitray")
			if v := prop(k, wmPID, xproto.AtomCardinal); !ours && len(v) == 4 {
				ours = slices.Contains(pids, int(xgb.Get32(v)))
			}
			if ours {
				found = append(found, strconv.FormatUint(uint64(k), 10))
			}
		}
	}
	walk(xproto.Setup(c).DefaultScreen(c).Root)
	return found
}

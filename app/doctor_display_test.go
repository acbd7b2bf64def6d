//go:build linux

package app

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/elicitray/elicitray/app/internal/testkit"
	"github.com/elicitray/elicitray/app/session"
)

// TestDoctorVerdictFollowsDisplay: doctor's last line says prompts can be
// shown only when its Display line found somewhere the windows open: with
// DISPLAY unreachable here, the display a running hub says it holds, and
// never a hub that says none (as the hub that outlived its X server did).
func TestDoctorVerdictFollowsDisplay(t *testing.T) {
	for _, tt := range []struct {
		name       string
		hubRunning bool
		hubDisplay string
		display    string // the Display line's start
		verdict    string
	}{
		{"no hub", false, "", "✗ Display: no desktop session of yours was found: display :97", "Prompts cannot be shown: no desktop session was found to start a hub in."},
		{"a hub that names its display", true, ":5", "✓ Display: the running hub (pid 42) shows the windows on DISPLAY=:5; none found here", "Prompts can be shown."},
		{"a hub that names none", true, "", "✗ Display: none found here", "Prompts cannot be shown: no display was found that the windows could open on."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &doctor{hubRunning: tt.hubRunning, hubDisplay: tt.hubDisplay, hubPID: 42,
				finder: &session.Finder{Uid: os.Getuid(), Pid: 1, Proc: "/nonexistent",
					Getenv: func(k string) string {
						if k == "DISPLAY" {
							return ":97"
						}
						return ""
					},
					Probe: func(context.Context, session.Desktop) error {
						return errors.New("no X server is running at DISPLAY=:97")
					}}}
			d.display(t.Context())
			var out strings.Builder
			d.write(&out)
			if l := testkit.DoctorLine(out.String(), "Display"); !strings.HasPrefix(l, tt.display) {
				t.Errorf("Display line %q, want it to start %q", l, tt.display)
			}
			if got := strings.TrimSpace(out.String()[strings.LastIndexByte(strings.TrimSpace(out.String()), '\n')+1:]); got != tt.verdict {
				t.Errorf("verdict %q, want %q\n%s", got, tt.verdict, out.String())
			}
		})
	}
}

package wrapper

import (
	"testing"

	"github.com/elicitray/elicitray/bridge"
)

// TestWhySaid: the host's log says why a prompt was answered without a
// person, in words true to what the user saw: a prompt that timed out may
// have been on screen the whole time, so its sentence says nobody
// answered, not that there was no window (a new user read "without a
// window" after watching the window for 20 s).
func TestWhySaid(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		res  bridge.Result
		want string
	}{
		{bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByTimeout, Reason: "nobody answered within 20s"},
			"answered cancel when its time ran out: nobody answered within 20s"},
		{bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByPaused, Reason: "prompts are paused"},
			"answered cancel without a window: prompts are paused"},
		{bridge.Result{Action: bridge.ActionAccept, DecidedBy: bridge.DecidedByRule},
			"answered accept without a window: decided by rule"},
		// The window was on screen until its process was killed (a
		// break-it session read "without a window").
		{bridge.Result{Action: bridge.ActionCancel, DecidedBy: bridge.DecidedByError, Reason: "the prompt window closed before anyone answered: its process ended (signal: killed)"},
			"answered cancel, as nobody could answer: the prompt window closed before anyone answered: its process ended (signal: killed)"},
	} {
		if got := whySaid(&tt.res); got != tt.want {
			t.Errorf("whySaid(%+v) = %q, want %q", tt.res, got, tt.want)
		}
	}
}

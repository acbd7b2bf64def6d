package winui

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"github.com/elicitray/elicitray/app/winproto"
	"github.com/elicitray/elicitray/ui"
)

// showOffer opens the first-run offer, or brings it forward; on the Fyne
// goroutine (window process). The answer counts as a window open until
// the hub has it: the process does not go in between.
func (s *Side) showOffer() {
	if s.offerWin != nil {
		s.offerWin.Show()
		s.offerWin.RequestFocus()
		return
	}
	w := ui.ShowAutostartOffer(s.app, func(yes bool) {
		s.open++
		go func() {
			if _, err := s.call(winproto.Message{Op: winproto.OpOfferAnswer, Yes: yes}, nil); err != nil && !errors.Is(err, errHubGone) {
				fmt.Fprintf(s.log, "elicitray ui: the autostart answer: %v\n", err)
			}
			fyne.Do(s.closedOne)
		}()
	})
	s.offerWin = w
	s.open++
	w.SetOnClosed(func() {
		if s.offerWin == w {
			s.offerWin = nil
		}
		s.closedOne()
	})
}

package app

import (
	"slices"
	"testing"
)

// TestMissingFonts: from what fc-list says of the installed fonts (one
// font's languages a line), the scripts no font draws, by name: Droid Sans
// Fallback's Traditional Chinese and Japanese count for Chinese, and with
// no Korean, Thai or Devanagari font those are named (a new user's server
// asked in Korean and Thai, and every window showed "�").
func TestMissingFonts(t *testing.T) {
	t.Parallel()
	fcList := "aa|af|ar|fa|ur\n" + // Noto Sans Arabic
		"he|yi\n" + // Noto Sans Hebrew
		"ja|zh-tw\n" + // Droid Sans Fallback
		"\n" + // a font with no language (symbols)
		"en|fr|de|ru|el\n"
	if got, want := missingFonts(fcList), []string{"Korean", "Thai", "Devanagari (Hindi)"}; !slices.Equal(got, want) {
		t.Errorf("missing %q, want %q", got, want)
	}
	if got := missingFonts(fcList + "ko\nth\nhi|mr|ne\n"); len(got) != 0 {
		t.Errorf("with every script drawn, missing %q", got)
	}
}

package app

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/elicitray/elicitray/ui/lang"
)

// fontScripts are the scripts doctor looks for a font of, each with the
// fontconfig languages any of which says a font draws it. Fyne's own font
// draws Latin, Greek and Cyrillic; text in a script no installed font draws
// shows as "�" in every window (a new user's Korean and Thai server).
var fontScripts = []struct {
	name  func() string
	langs []string
}{
	{func() string { return lang.L("Chinese") }, []string{"zh-cn", "zh-tw", "zh-hk", "zh-sg", "zh-mo"}},
	{func() string { return lang.L("Japanese") }, []string{"ja"}},
	{func() string { return lang.L("Korean") }, []string{"ko"}},
	{func() string { return lang.L("Arabic and Persian") }, []string{"ar", "fa"}},
	{func() string { return lang.L("Hebrew") }, []string{"he"}},
	{func() string { return lang.L("Thai") }, []string{"th"}},
	{func() string { return lang.L("Devanagari (Hindi)") }, []string{"hi", "mr", "ne"}},
}

// fonts says which scripts no installed font draws, as fontconfig sees the
// fonts (Fyne finds them in the same folders). Linux only; nothing when
// fontconfig's fc-list is not there to ask.
func (d *doctor) fonts(ctx context.Context) {
	if runtime.GOOS != "linux" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "fc-list", "--format=%{lang}\n").Output()
	if err != nil {
		return
	}
	missing := missingFonts(string(out))
	if len(missing) == 0 {
		var drawn []string
		for _, s := range fontScripts {
			drawn = append(drawn, s.name())
		}
		d.add(levelOK, lang.L("Fonts"), lang.L("installed fonts draw %s."), strings.Join(drawn, lang.L(", ")))
		return
	}
	d.add(levelNote, lang.L("Fonts"), lang.L("no installed font draws %s: such text in a prompt shows as �. Install fonts for them (on Debian and Ubuntu, fonts-noto-cjk for Chinese, Japanese and Korean, and fonts-noto-core for the others)."), strings.Join(missing, lang.L(", ")))
}

// missingFonts is the names of the scripts of fontScripts that none of the
// fonts fc-list describes (one font's languages a line, "|" between them)
// draws.
func missingFonts(fcList string) []string {
	have := map[string]bool{}
	for _, l := range strings.FieldsFunc(fcList, func(r rune) bool { return r == '\n' || r == '|' }) {
		have[l] = true
	}
	var missing []string
	for _, s := range fontScripts {
		found := false
		for _, l := range s.langs {
			found = found || have[l]
		}
		if !found {
			missing = append(missing, s.name())
		}
	}
	return missing
}

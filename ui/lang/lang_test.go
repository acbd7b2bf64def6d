package lang

import (
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// setLocale sets the variables go-locale reads, the others empty.
func setLocale(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range []string{"LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"} {
		t.Setenv(k, env[k])
	}
}

// TestLanguageFromEnvironment: the language is chosen from LC_ALL,
// LC_MESSAGES, LANG, then LANGUAGE, as the windows choose it; C and a
// language only Fyne speaks read English, with that language's plurals
// (French counts 0 as one); and a change of the environment is followed.
func TestLanguageFromEnvironment(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on Windows the language is the user's display language, not the environment's (go-locale asks the system)")
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		want []string // Decline, then 0, 1 and 1234 decisions waiting
	}{
		{"en_US", map[string]string{"LANG": "en_US.UTF-8"},
			[]string{"Decline", " and 0 decisions waiting in the spool", " and 1 decision waiting in the spool", " and 1,234 decisions waiting in the spool"}},
		{"zh_CN", map[string]string{"LANG": "zh_CN.UTF-8"},
			[]string{"拒绝", "，另有 0 条决定在暂存区等待", "，另有 1 条决定在暂存区等待", "，另有 1,234 条决定在暂存区等待"}},
		{"LC_ALL over LANG", map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"},
			[]string{"拒绝", "，另有 0 条决定在暂存区等待", "，另有 1 条决定在暂存区等待", "，另有 1,234 条决定在暂存区等待"}},
		{"LC_MESSAGES over LANG", map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"},
			[]string{"拒绝", "，另有 0 条决定在暂存区等待", "，另有 1 条决定在暂存区等待", "，另有 1,234 条决定在暂存区等待"}},
		{"LANGUAGE", map[string]string{"LANG": "en_GB.UTF-8", "LANGUAGE": "zh_CN:en"},
			[]string{"拒绝", "，另有 0 条决定在暂存区等待", "，另有 1 条决定在暂存区等待", "，另有 1,234 条决定在暂存区等待"}},
		{"LANGUAGE, its first that Fyne speaks", map[string]string{"LANG": "en_GB.UTF-8", "LANGUAGE": "fr_FR:zh_CN"},
			[]string{"Decline", " and 0 decision waiting in the spool", " and 1 decision waiting in the spool", " and 1,234 decisions waiting in the spool"}},
		{"C over LANGUAGE", map[string]string{"LANG": "C", "LANGUAGE": "zh_CN"},
			[]string{"Decline", " and 0 decisions waiting in the spool", " and 1 decision waiting in the spool", " and 1,234 decisions waiting in the spool"}},
		{"nothing set", map[string]string{},
			[]string{"Decline", " and 0 decisions waiting in the spool", " and 1 decision waiting in the spool", " and 1,234 decisions waiting in the spool"}},
		{"de_DE", map[string]string{"LANG": "de_DE.UTF-8"},
			[]string{"Decline", " and 0 decisions waiting in the spool", " and 1 decision waiting in the spool", " and 1,234 decisions waiting in the spool"}},
		{"ja_JP", map[string]string{"LANG": "ja_JP.UTF-8"},
			[]string{"Decline", " and 0 decisions waiting in the spool", " and 1 decision waiting in the spool", " and 1,234 decisions waiting in the spool"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			setLocale(t, tt.env)
			got := []string{L("Decline")}
			for _, n := range []int{0, 1, 1234} {
				got = append(got, N(" and {{.Count}} decisions waiting in the spool", n, Count(n)))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUntranslatedKeyIsItsEnglish: a key no file has reads as written,
// its template filled in, in every language.
func TestUntranslatedKeyIsItsEnglish(t *testing.T) {
	setLocale(t, map[string]string{"LANG": "zh_CN.UTF-8"})
	if got, want := L("no such {{.Thing}}", map[string]any{"Thing": "key"}), "no such key"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234", -12: "-12"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := CountText(1, "decision", "decisions") + "; " + CountText(1500, "decision", "decisions"); got != "1 decision; 1,500 decisions" {
		t.Errorf("CountText: %q", got)
	}
}

// TestBytes: sizes as doctor and the config check have always said them.
func TestBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{512: "512 B", 64 << 10: "64.0 KiB", 256 << 10: "256.0 KiB", 300000: "293.0 KiB", 59<<30 + 1<<29: "59.5 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

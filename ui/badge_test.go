package ui

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/elicitray/elicitray/bridge/elicit"
)

func TestBadgeInitials(t *testing.T) {
	for _, tt := range []struct {
		name, want string
	}{
		{"github", "GI"},
		{"GitHub", "GH"},
		{"my-jira", "MJ"},
		{"server-everything", "SE"},
		{"server everything 2", "SE"},
		{"GitHubEnterprise", "GH"},
		{"mcp_server_2", "MS"},
		{"db", "DB"},
		{"x", "X"},
		{"s3", "S3"},
		{"2fa", "2F"},
		{"éclair", "ÉC"},
		{"e\u0301clair", "E\u0301C"},
		{"数据库", "数据"},
		{"数据库-备份", "数备"},
		{"नमस्ते", "नम"},
		{"خادم", "خا"},
		{"שרת-נתונים", "שנ"},
		{"👩‍👩‍👧‍👦-db", "DB"},
		{"  spaced  out ", "SO"},
		{"", "?"},
		{"—", "?"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := badgeInitials(tt.name); got != tt.want {
				t.Errorf("badgeInitials(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

// TestBadgeColorStable: a name's colour is the same in every window and
// every run; pinned here so that a change of the derivation, which would
// repaint every server the user has learned, is deliberate.
func TestBadgeColorStable(t *testing.T) {
	for _, tt := range []struct {
		name string
		hue  int
		fill color.NRGBA
	}{
		{"github", 290, color.NRGBA{R: 164, G: 40, B: 189, A: 255}},
		{"my-jira", 342, color.NRGBA{R: 189, G: 40, B: 85, A: 255}},
		{"slack", 199, color.NRGBA{R: 40, G: 142, B: 189, A: 255}},
	} {
		if got := badgeHue(tt.name); got != tt.hue {
			t.Errorf("badgeHue(%q) = %d, want %d", tt.name, got, tt.hue)
		}
		if got := badgeColor(tt.name); got != tt.fill {
			t.Errorf("badgeColor(%q) = %v, want %v", tt.name, got, tt.fill)
		}
		if badgeColor(tt.name) != badgeColor(tt.name) {
			t.Errorf("badgeColor(%q) changes from call to call", tt.name)
		}
	}
}

// TestBadgeDistinct: the servers of a typical setup get badges that differ
// in colour, initials or both, and a one-letter or case change of a name
// changes its colour.
func TestBadgeDistinct(t *testing.T) {
	type badge struct {
		fill     color.NRGBA
		initials string
	}
	seen := map[badge]string{}
	hues := map[int]string{}
	for _, name := range []string{
		"github", "gitlab", "my-jira", "jira", "slack", "demo", "everything", "server-everything",
		"db", "postgres", "payments", "filesystem", "linear", "notion", "sentry", "stripe",
	} {
		b := badge{badgeColor(name), badgeInitials(name)}
		if other, ok := seen[b]; ok {
			t.Errorf("%q and %q get the same badge %v", name, other, b)
		}
		seen[b] = name
		if other, ok := hues[badgeHue(name)]; ok {
			t.Errorf("%q and %q get the same hue %d", name, other, badgeHue(name))
		}
		hues[badgeHue(name)] = name
	}
	for _, pair := range [][2]string{{"github", "githud"}, {"github", "GitHub"}, {"payments", "payment"}} {
		if badgeColor(pair[0]) == badgeColor(pair[1]) {
			t.Errorf("%q and %q get one colour", pair[0], pair[1])
		}
	}
}

// TestBadgeReadable: whatever the hue, the initials contrast with the disc
// at least 4.5:1 (WCAG AA for text), and the disc stands apart from the
// light and the dark theme's background.
func TestBadgeReadable(t *testing.T) {
	white := color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	dark := color.NRGBA{R: 0x17, G: 0x17, B: 0x18, A: 0xff} // Fyne's dark background
	for h := range 360 {
		r, g, b := hslToRGB(float64(h), badgeSaturation, badgeLightness)
		fill := color.NRGBA{R: r, G: g, B: b, A: 0xff}
		if c := contrast(fill, badgeTextColor(fill)); c < 4.5 {
			t.Errorf("hue %d: initials contrast %.2f:1", h, c)
		}
		if c := contrast(fill, white); c < 1.8 {
			t.Errorf("hue %d: disc on white contrasts %.2f:1", h, c)
		}
		if c := contrast(fill, dark); c < 1.8 {
			t.Errorf("hue %d: disc on the dark theme contrasts %.2f:1", h, c)
		}
	}
}

// TestHeaderShowsBadge: both prompts show the configured name's badge left
// of the name, the same in both.
func TestHeaderShowsBadge(t *testing.T) {
	test.NewTempApp(t)
	form := &elicit.Form{}
	views := map[string]fyne.CanvasObject{
		"form": newPromptView(&Prompt{Server: "my-jira", ServerInfo: "github", Message: "Go?", Form: form}, func(Answer) {}).content,
		"url":  newURLPromptView(&URLPrompt{Server: "my-jira", ServerInfo: "github", Message: "Go?"}, func(Answer) {}).content,
	}
	for kind, content := range views {
		t.Run(kind, func(t *testing.T) {
			test.NewTempWindow(t, content).Resize(fyne.NewSize(560, 500))
			var discs []color.Color
			var texts []*canvas.Text
			walkVisible(content, func(o fyne.CanvasObject) bool {
				switch o := o.(type) {
				case *canvas.Circle:
					// Opaque: a check box's focus ring is a clear circle.
					if _, _, _, a := o.FillColor.RGBA(); a == 0xffff {
						discs = append(discs, o.FillColor)
					}
				case *canvas.Text:
					if o.Text == badgeInitials("my-jira") {
						texts = append(texts, o)
					}
				}
				return true
			})
			if diff := cmp.Diff([]color.Color{badgeColor("my-jira")}, discs); diff != "" {
				t.Errorf("badge discs mismatch (-want +got):\n%s", diff)
			}
			if len(texts) != 1 {
				t.Fatalf("%d texts read %q, want the badge's", len(texts), badgeInitials("my-jira"))
			}
			var name fyne.CanvasObject // as drawn: a bidiLabel's own Label is not in the tree
			walkVisible(content, func(o fyne.CanvasObject) bool {
				if l := labelOf(o); l != nil && l.Text == "my-jira" && name == nil {
					name = o
				}
				return name == nil
			})
			if name == nil {
				t.Fatal("the configured name is not shown")
			}
			d := fyne.CurrentApp().Driver()
			if x, nameX := d.AbsolutePositionForObject(texts[0]).X, d.AbsolutePositionForObject(name).X; x >= nameX {
				t.Errorf("badge at x=%v, name at x=%v: the badge must be left of the name", x, nameX)
			}
		})
	}
}

package ui

import (
	"hash/fnv"
	"image/color"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"github.com/elicitray/elicitray/chars"
)

// The server badge: a coloured disc with initials, left of the configured
// name in every prompt's header. Both come from the name the user
// configured (--name), never from anything the server sends, so a server
// cannot borrow another's badge by calling itself by its name
// (PROTOCOL.md §6: make clear which server is asking); and the same name
// gives the same badge in every window, every time, which the eye learns
// faster than it reads a name.
const (
	// badgeSize is the disc's diameter.
	badgeSize = 32
	// badgeSaturation and badgeLightness fix the disc's colour but for its
	// hue: mid-light and fairly saturated, a colour that stands out on the
	// light theme's white and on the dark theme's near-black, whatever
	// the hue. The initials are black or white, whichever contrasts more.
	badgeSaturation = 0.65
	badgeLightness  = 0.45
)

// badgeHue is the hue of name's badge, in degrees [0, 360): the 32-bit
// FNV-1a hash of the name's bytes, modulo 360. Any change of the name, a
// letter or its case, moves it.
func badgeHue(name string) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % 360)
}

// badgeColor is the fill of name's badge: its hue at badgeSaturation and
// badgeLightness, opaque.
func badgeColor(name string) color.NRGBA {
	r, g, b := hslToRGB(float64(badgeHue(name)), badgeSaturation, badgeLightness)
	return color.NRGBA{R: r, G: g, B: b, A: 0xff}
}

// badgeTextColor is the colour of the initials on fill: black or white,
// whichever contrasts more with it (WCAG 2 contrast ratio; the better of
// the two is always at least 4.58:1).
func badgeTextColor(fill color.NRGBA) color.NRGBA {
	black := color.NRGBA{A: 0xff}
	white := color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	if contrast(fill, white) >= contrast(fill, black) {
		return white
	}
	return black
}

// badgeInitials are the one or two letters on name's badge, upper case.
// The name is cut into words at everything that is not a letter or digit
// and at camelCase humps; with two words or more, the initials are the
// first letters of the first two ("my-jira" → "MJ", "GitHubEnterprise" →
// "GH", "server everything" → "SE"); with one, its first two characters
// ("github" → "GI", "db" → "DB", "s3" → "S3", "x" → "X"). A name with no
// letter or digit gets "?".
func badgeInitials(name string) string {
	// By characters, not runes: a vowel sign or an accent is a rune that is
	// not a letter, and split "नमस्ते" into words as it split "é" from its
	// mark.
	var words [][]string
	var cur []string
	for c := range chars.All(name) {
		r, _ := utf8.DecodeRuneInString(c)
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if len(cur) > 0 {
				words, cur = append(words, cur), nil
			}
			continue
		}
		if len(cur) > 0 {
			if last, _ := utf8.DecodeRuneInString(cur[len(cur)-1]); unicode.IsLower(last) && unicode.IsUpper(r) {
				words, cur = append(words, cur), nil
			}
		}
		cur = append(cur, c)
	}
	if len(cur) > 0 {
		words = append(words, cur)
	}
	var initials []string
	switch {
	case len(words) == 0:
		return "?"
	case len(words) == 1:
		initials = words[0][:min(2, len(words[0]))]
	default:
		initials = []string{words[0][0], words[1][0]}
	}
	return strings.ToUpper(strings.Join(initials, ""))
}

// newBadge is name's badge: a disc of badgeColor with badgeInitials in
// bold, badgeSize across.
func newBadge(name string) fyne.CanvasObject {
	fill := badgeColor(name)
	disc := canvas.NewCircle(fill)
	text := canvas.NewText(badgeInitials(name), badgeTextColor(fill))
	text.TextStyle = fyne.TextStyle{Bold: true}
	text.TextSize = 13
	text.Alignment = fyne.TextAlignCenter
	size := fyne.NewSquareSize(badgeSize)
	return container.NewCenter(container.NewGridWrap(size, container.NewStack(disc, container.NewCenter(text))))
}

// hslToRGB converts a colour from HSL (hue in degrees, saturation and
// lightness in [0, 1]) to 8-bit RGB.
func hslToRGB(h, s, l float64) (r, g, b uint8) {
	c := (1 - math.Abs(2*l-1)) * s
	hp := math.Mod(h, 360) / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2)-1))
	var r1, g1, b1 float64
	switch {
	case hp < 1:
		r1, g1 = c, x
	case hp < 2:
		r1, g1 = x, c
	case hp < 3:
		g1, b1 = c, x
	case hp < 4:
		g1, b1 = x, c
	case hp < 5:
		r1, b1 = x, c
	default:
		r1, b1 = c, x
	}
	m := l - c/2
	to8 := func(v float64) uint8 { return uint8(math.Round(max(0, min(1, v+m)) * 255)) }
	return to8(r1), to8(g1), to8(b1)
}

// luminance is the WCAG 2 relative luminance of c, in [0, 1].
func luminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// contrast is the WCAG 2 contrast ratio of a and b, from 1 to 21.
func contrast(a, b color.NRGBA) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

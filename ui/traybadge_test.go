package ui

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"slices"
	"testing"

	"github.com/elicitray/elicitray/assets"
)

// TestTrayIconCounts (issue 14): the number of prompts waiting shows on the
// tray icon, each change once, with the tooltip saying it; with none the
// icon is the app's own again.
func TestTrayIconCounts(t *testing.T) {
	h := newTrayHarness(t)
	var shown []int
	h.tr.count = func(n int) { shown = append(shown, n) }
	for _, n := range []int{1, 3, 3, 0} {
		h.tr.SetPending(n)
	}
	if want := []int{1, 3, 0}; !slices.Equal(shown, want) {
		t.Errorf("the icon was redrawn for %v, want %v (each change once)", shown, want)
	}

	if !bytes.Equal(trayIcon(0), assets.Icon) {
		t.Error("with no prompt waiting, the tray icon is not the app icon")
	}
	for _, tt := range []struct {
		n       int
		tooltip string
	}{
		{0, "elicitray"},
		{1, "elicitray: 1 prompt waiting"},
		{12, "elicitray: 12 prompts waiting"},
	} {
		if got := trayTooltip(tt.n); got != tt.tooltip {
			t.Errorf("tooltip for %d waiting: %q, want %q", tt.n, got, tt.tooltip)
		}
	}

	plain := decodeIcon(t, assets.Icon)
	one, three, many := decodeIcon(t, trayIcon(1)), decodeIcon(t, trayIcon(3)), decodeIcon(t, trayIcon(12))
	if one.Bounds() != plain.Bounds() {
		t.Fatalf("the badged icon is %v, the app icon %v", one.Bounds(), plain.Bounds())
	}
	// The badge: red at the top-right, white digits in it; the rest of
	// the icon as it was.
	b := plain.Bounds()
	r := int(float64(b.Dx()) * 0.28)
	edge := image.Pt(b.Max.X-r, b.Min.Y+r/5) // inside the disc, above the digit
	if got := color.NRGBAModel.Convert(one.At(edge.X, edge.Y)).(color.NRGBA); got != badgeRed {
		t.Errorf("the badge at %v is %v, want %v", edge, got, badgeRed)
	}
	if w := whitePixels(one, b.Max.X-2*r, b.Min.Y, b.Max.X, b.Min.Y+2*r); w < 50 {
		t.Errorf("the badge for 1 has %d white pixels: no digit drawn", w)
	}
	if differ(one, three, b.Max.X-2*r, b.Min.Y, b.Max.X, b.Min.Y+2*r) == 0 {
		t.Error("the badges for 1 and 3 waiting look the same")
	}
	if differ(three, many, b.Max.X-2*r, b.Min.Y, b.Max.X, b.Min.Y+2*r) == 0 {
		t.Error("the badges for 3 and 12 (9+) waiting look the same")
	}
	if n := differ(plain, one, b.Min.X, b.Min.Y+2*r+2, b.Max.X, b.Max.Y); n != 0 {
		t.Errorf("the badge changed %d pixels of the icon below it", n)
	}
	if !bytes.Equal(trayIcon(12), trayIcon(40)) {
		t.Error("12 and 40 waiting do not both show 9+")
	}
}

func decodeIcon(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the tray icon is not a PNG: %v", err)
	}
	return img
}

// whitePixels counts the near-white pixels of img in the rectangle.
func whitePixels(img image.Image, x0, y0, x1, y1 int) int {
	n := 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if c.R > 0xf0 && c.G > 0xf0 && c.B > 0xf0 && c.A == 0xff {
				n++
			}
		}
	}
	return n
}

// differ counts the pixels in the rectangle where a and b differ.
func differ(a, b image.Image, x0, y0, x1, y1 int) int {
	n := 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			if color.NRGBAModel.Convert(a.At(x, y)) != color.NRGBAModel.Convert(b.At(x, y)) {
				n++
			}
		}
	}
	return n
}

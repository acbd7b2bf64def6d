package ui

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strconv"
	"sync"

	"fyne.io/fyne/v2/theme"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/elicitray/elicitray/assets"
)

// The tray icon counts the prompts waiting (issue 14): with none, it is
// the app icon; with some, the icon wears a red disc in its top-right
// corner with their number in white ("9+" beyond nine), as a mail or chat
// icon does, and its tooltip says it in words. A tray host draws the icon
// from its pixels (StatusNotifierItem's IconPixmap), so the count needs no
// support of the host's beyond showing icons.

// badgeRed is the disc's colour: a red that white text reads well on
// (contrast 5.9:1).
var badgeRed = color.NRGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff}

// trayIcons caches the icons made, by count shown ("1" … "9", "9+").
var trayIcons struct {
	mu   sync.Mutex
	pngs map[string][]byte
}

// trayCount is what the badge says for n prompts waiting; "" for none.
func trayCount(n int) string {
	switch {
	case n <= 0:
		return ""
	case n > 9:
		return "9+"
	}
	return strconv.Itoa(n)
}

// trayTooltip is the tray icon's tooltip for n prompts waiting.
func trayTooltip(n int) string {
	if n <= 0 {
		return "elicitray"
	}
	return "elicitray: " + pendingText(n)
}

// trayIcon is the tray icon, as PNG, for n prompts waiting: the app icon,
// badged with trayCount(n) when n > 0. Should the badge not draw (a font
// that does not parse), the app icon stands, and the tooltip still counts.
func trayIcon(n int) []byte {
	count := trayCount(n)
	if count == "" {
		return assets.Icon
	}
	trayIcons.mu.Lock()
	defer trayIcons.mu.Unlock()
	if b, ok := trayIcons.pngs[count]; ok {
		return b
	}
	b, err := badgedIcon(count)
	if err != nil {
		return assets.Icon
	}
	if trayIcons.pngs == nil {
		trayIcons.pngs = map[string][]byte{}
	}
	trayIcons.pngs[count] = b
	return b
}

// badgedIcon draws count on the app icon, in a disc 0.56 of the icon
// across at its top-right corner, in the theme's bold font.
func badgedIcon(count string) ([]byte, error) {
	src, err := png.Decode(bytes.NewReader(assets.Icon))
	if err != nil {
		return nil, err
	}
	b := src.Bounds()
	img := image.NewNRGBA(b)
	draw.Draw(img, b, src, b.Min, draw.Src)
	size := float64(b.Dx())
	r := size * 0.28
	cx, cy := float64(b.Max.X)-r, float64(b.Min.Y)+r
	// The disc, with a ring of the icon's edge smoothed (one pixel's
	// coverage worked out from the distance to the centre).
	for y := b.Min.Y; y < b.Min.Y+int(2*r)+1 && y < b.Max.Y; y++ {
		for x := b.Max.X - int(2*r) - 1; x < b.Max.X; x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			d := r - math.Hypot(dx, dy)
			if d <= -0.5 {
				continue
			}
			a := min(1, d+0.5)
			img.Set(x, y, blend(img.NRGBAAt(x, y), badgeRed, a))
		}
	}
	f, err := opentype.Parse(theme.DefaultTextBoldFont().Content())
	if err != nil {
		return nil, err
	}
	textSize := r * 1.25
	if len(count) > 1 {
		textSize = r * 0.95
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: textSize, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, err
	}
	defer face.Close()
	d := &font.Drawer{Dst: img, Src: image.NewUniform(color.White), Face: face}
	bounds, _ := d.BoundString(count)
	w := (bounds.Max.X - bounds.Min.X).Round()
	h := (bounds.Max.Y - bounds.Min.Y).Round()
	d.Dot = fixed.P(int(cx)-w/2-bounds.Min.X.Round(), int(cy)+h/2-bounds.Max.Y.Round())
	d.DrawString(count)
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// blend is c, opaque, over under with coverage a in [0, 1] (Porter-Duff
// "over" on unpremultiplied colours).
func blend(under, c color.NRGBA, a float64) color.NRGBA {
	ua := float64(under.A) / 255
	oa := a + ua*(1-a)
	if oa == 0 {
		return color.NRGBA{}
	}
	mix := func(u, v uint8) uint8 { return uint8((float64(v)*a+float64(u)*ua*(1-a))/oa + 0.5) }
	return color.NRGBA{R: mix(under.R, c.R), G: mix(under.G, c.G), B: mix(under.B, c.B), A: uint8(oa*255 + 0.5)}
}

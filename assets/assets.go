// Package assets holds the files elicitray embeds in its binary.
package assets

import _ "embed" // for go:embed

// Icon is the application icon: a 256×256 PNG of a speech bubble holding a
// small form, used for the windows and the tray.
//
//go:embed icon.png
var Icon []byte

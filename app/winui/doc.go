// Package winui is the window process (`elicitray ui`), started by the hub
// when a window is wanted: it owns the Fyne app and draws the prompt, URL
// consent, history, settings, menu and first-run windows (package ui), and
// tells the hub what the person did over the socketpair it inherited
// (app/winproto). Everything that touches widgets runs on Fyne's goroutine
// (fyne.Do).
//
// Files: wincmd.go (Run, and the reader of the hub's messages),
// winprompter.go (prompts), winmenu.go (the menu window), winoffer.go (the
// autostart offer).
package winui

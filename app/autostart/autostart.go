// Package autostart starts elicitray's hub when the user logs in, so that
// the tray is up before the first prompt. Each OS keeps its own entry: an
// XDG autostart file on Linux and the BSDs (entry_xdg.go), a launchd
// LaunchAgent on macOS (entry_darwin.go), a Run value under HKCU on
// Windows (entry_windows.go). What an entry says is made here, the same on
// every OS, so that tests on one machine check all three (golden files in
// testdata/autostart).
package autostart

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ID names the entry: FyneApp.toml's ID.
const ID = "io.github.elicitray"

// Entry is the OS's autostart entry.
type Entry interface {
	// Where is the entry's file, or registry value.
	Where() string
	// Enable writes the entry, so that t starts at login.
	Enable(t Target) error
	// Disable removes the entry; removed is false when there was none.
	Disable() (removed bool, err error)
	// Status says whether there is an entry, and whether it starts t.
	Status(t Target) (State, error)
}

// Target is what an entry starts: the hub of this binary, with
// --home when the user's elicitray lives under ELICITRAY_HOME.
type Target struct {
	Exe  string // the binary's absolute path
	Home string // ELICITRAY_HOME, or ""
}

// args are the hub's arguments after the binary.
func (t Target) args() []string {
	if t.Home == "" {
		return []string{"hub"}
	}
	return []string{"hub", "--home", t.Home}
}

// Current is what `autostart on` writes now: this binary's hub.
func Current() (Target, error) {
	exe, err := os.Executable()
	if err != nil {
		return Target{}, fmt.Errorf("finding elicitray's own path: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return Target{Exe: exe, Home: os.Getenv("ELICITRAY_HOME")}, nil
}

// XDGEntry is the XDG autostart file (the Desktop Application
// Autostart Specification): a launcher entry in autostart/, hidden from
// menus, that runs the hub at login.
func XDGEntry(t Target) []byte {
	var b bytes.Buffer
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	b.WriteString("Name=elicitray\n")
	b.WriteString("Comment=The elicitray hub: the tray icon and the windows of MCP servers' questions\n")
	exec := []string{desktopQuote(t.Exe)}
	for _, a := range t.args() {
		exec = append(exec, desktopQuote(a))
	}
	fmt.Fprintf(&b, "Exec=%s\n", strings.Join(exec, " "))
	fmt.Fprintf(&b, "TryExec=%s\n", desktopString.Replace(t.Exe))
	fmt.Fprintf(&b, "Icon=%s\n", ID)
	b.WriteString("Terminal=false\n")
	b.WriteString("NoDisplay=true\n")
	b.WriteString("X-GNOME-Autostart-enabled=true\n")
	return b.Bytes()
}

// desktopString escapes a launcher entry's string value (Desktop Entry
// Specification, "Possible value types"); desktopUnstring reads it back.
var (
	desktopString   = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`)
	desktopUnstring = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\s`, " ")
)

// desktopQuote quotes one argument of a launcher entry's Exec key: in
// double quotes, with `"`, "`", "$" and "\" escaped by a backslash, and the
// backslash doubled once more for the key's string escaping (Desktop Entry
// Specification, "The Exec key").
func desktopQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '`', '$':
			b.WriteString(`\\`)
		case '\\':
			b.WriteString(`\\\`)
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// LaunchAgent is the macOS LaunchAgent (launchd.plist(5)): the hub at
// login, in the user's GUI session, not restarted when it quits (Quit in
// the tray means quit).
func LaunchAgent(t Target) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString(`<plist version="1.0">` + "\n<dict>\n")
	fmt.Fprintf(&b, "\t<key>Label</key>\n\t<string>%s</string>\n", xmlText(ID))
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	for _, a := range append([]string{t.Exe}, t.args()...) {
		fmt.Fprintf(&b, "\t\t<string>%s</string>\n", xmlText(a))
	}
	b.WriteString("\t</array>\n")
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n")
	b.WriteString("\t<key>KeepAlive</key>\n\t<false/>\n")
	b.WriteString("\t<key>LimitLoadToSessionType</key>\n\t<string>Aqua</string>\n")
	b.WriteString("\t<key>ProcessType</key>\n\t<string>Interactive</string>\n")
	b.WriteString("</dict>\n</plist>\n")
	return b.Bytes()
}

func xmlText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WindowsRunCommand is the command line of the Run value
// (HKCU\Software\Microsoft\Windows\CurrentVersion\Run): the hub, each
// argument quoted as CommandLineToArgvW reads it.
func WindowsRunCommand(t Target) string {
	args := []string{windowsQuote(t.Exe)}
	for _, a := range t.args() {
		args = append(args, windowsQuote(a))
	}
	return strings.Join(args, " ")
}

// windowsQuote quotes one argument for CommandLineToArgvW: in double
// quotes, with the backslashes before a quote (a path's trailing ones,
// "C:\") doubled, and a quote, which no Windows path holds, escaped.
func windowsQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for _, r := range s {
		switch r {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteRune(r)
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}

// State is what `autostart status` finds.
type State struct {
	Where   string // the entry's file, or registry value
	On      bool
	Current bool   // the entry starts this binary's hub, as `on` would write it
	Exe     string // the binary the entry starts, when it can be told
	Missing bool   // that binary is gone
	SameExe bool   // it is this binary (with other arguments, when not Current)
}

// Sentence says st the way `autostart status` prints it, and doctor
// reports it.
func (st State) Sentence() string {
	switch {
	case !st.On:
		return fmt.Sprintf("autostart off: the hub starts with the first prompt, or `elicitray autostart on` starts it at login (%s).", st.Where)
	case st.Missing:
		return fmt.Sprintf("autostart on, but %s starts %s, which is gone: run `elicitray autostart on` to start this elicitray instead.", st.Where, st.Exe)
	case !st.Current && st.SameExe:
		return fmt.Sprintf("autostart on, for this elicitray with another ELICITRAY_HOME (%s): `elicitray autostart on` writes it for this one.", st.Where)
	case !st.Current && st.Exe != "":
		return fmt.Sprintf("autostart on, for another elicitray: %s starts %s (`elicitray autostart on` points it at this one).", st.Where, st.Exe)
	case !st.Current:
		return fmt.Sprintf("autostart on, but %s was changed by hand: `elicitray autostart on` writes it anew.", st.Where)
	}
	return fmt.Sprintf("autostart on: %s starts the hub when you log in.", st.Where)
}

// entryFile is an autostart entry that is one file (Linux, macOS): it is
// written in one step (a temporary file renamed over it) and never through
// a link planted in its place.
type entryFile struct {
	path    string
	content func(Target) []byte
	// exe finds the binary an entry starts in its content, or "".
	exe func(content []byte) string
}

func (f entryFile) Where() string { return f.path }

func (f entryFile) Enable(t Target) error {
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if fi, err := os.Lstat(f.path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (a link or a directory): elicitray leaves it alone", f.path)
	}
	tmp, err := os.CreateTemp(dir, ".elicitray-autostart-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(f.content(t)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.path)
}

func (f entryFile) Disable() (bool, error) {
	fi, err := os.Lstat(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("%s is not a regular file (a link or a directory): elicitray leaves it alone", f.path)
	}
	return true, os.Remove(f.path)
}

func (f entryFile) Status(t Target) (State, error) {
	st := State{Where: f.path}
	b, err := readRegular(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	st.On = true
	st.Current = bytes.Equal(b, f.content(t))
	st.Exe = f.exe(b)
	st.SameExe = st.Exe == t.Exe
	if st.Exe != "" {
		if _, err := os.Stat(st.Exe); err != nil {
			st.Missing = true
		}
	}
	return st, nil
}

// readRegular reads path when it is a regular file (not through a link).
func readRegular(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (a link or a directory)", path)
	}
	return os.ReadFile(path)
}

// tryExecOf is the binary an XDG autostart entry starts: its TryExec.
func tryExecOf(content []byte) string {
	for line := range strings.SplitSeq(string(content), "\n") {
		if v, ok := strings.CutPrefix(line, "TryExec="); ok {
			return desktopUnstring.Replace(strings.TrimSpace(v))
		}
	}
	return ""
}

// programOf is the binary a LaunchAgent starts: the first of its
// ProgramArguments.
func programOf(content []byte) string {
	s := string(content)
	_, rest, ok := strings.Cut(s, "<key>ProgramArguments</key>")
	if !ok {
		return ""
	}
	_, rest, ok = strings.Cut(rest, "<string>")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, "</string>")
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(v)
}

// On makes the desktop start this binary's hub at login, as
// `elicitray autostart on` does (and the first-run offer's Start at login),
// and says so in a sentence.
func On() (string, error) {
	t, err := Current()
	if err != nil {
		return "", err
	}
	a := New()
	if err := a.Enable(t); err != nil {
		return "", fmt.Errorf("turning autostart on: %w", err)
	}
	return fmt.Sprintf("autostart on: %s starts %s hub when you log in.", a.Where(), t.Exe), nil
}

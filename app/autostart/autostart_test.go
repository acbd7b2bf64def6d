package autostart

import (
	"encoding/xml"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// targets are the entries the golden files hold: a plain install, one
// under ELICITRAY_HOME, and paths with every character the quoting rules
// of the three formats treat specially.
var targets = []struct {
	name string
	unix Target // Linux and macOS
	win  Target
}{
	{"plain", Target{Exe: "/home/ada/.local/bin/elicitray"}, Target{Exe: `C:\Users\ada\AppData\Local\Programs\elicitray\elicitray.exe`}},
	{"home", Target{Exe: "/opt/elicitray/bin/elicitray", Home: "/home/ada/elicitray test"}, Target{Exe: `C:\Program Files\elicitray\elicitray.exe`, Home: `D:\`}},
	{"odd", Target{Exe: `/home/a "b"/$HOME/back\slash/it's & <me>/elicitray`}, Target{Exe: `C:\a b\c\\elicitray.exe`, Home: `C:\trailing\\`}},
}

// TestEntriesGolden: what `autostart on` writes on each OS, byte for byte.
func TestEntriesGolden(t *testing.T) {
	for _, tt := range targets {
		for _, f := range []struct {
			file string
			got  []byte
		}{
			{tt.name + ".desktop", XDGEntry(tt.unix)},
			{tt.name + ".plist", LaunchAgent(tt.unix)},
			{tt.name + ".windows.txt", []byte(WindowsRunCommand(tt.win) + "\n")},
		} {
			path := filepath.Join("testdata", f.file)
			if *update {
				if err := os.WriteFile(path, f.got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if diff := cmp.Diff(string(want), string(f.got)); diff != "" {
				t.Errorf("%s (-golden +now):\n%s", f.file, diff)
			}
		}
	}
}

// TestXDGEntryRunsTheHub: the autostart file is a valid launcher entry
// (desktop-file-validate) whose Exec, read by the specification's quoting
// rules, is exactly the binary and the hub's arguments.
func TestXDGEntryRunsTheHub(t *testing.T) {
	validate, verr := exec.LookPath("desktop-file-validate")
	for _, tt := range targets {
		entry := XDGEntry(tt.unix)
		exec := keyOf(t, entry, "Exec")
		if got, want := desktopArgs(t, exec), append([]string{tt.unix.Exe}, tt.unix.args()...); !cmp.Equal(got, want) {
			t.Errorf("%s: Exec=%s runs %q, want %q", tt.name, exec, got, want)
		}
		if got := tryExecOf(entry); got != tt.unix.Exe {
			t.Errorf("%s: status would read the binary as %q, want %q", tt.name, got, tt.unix.Exe)
		}
		if verr != nil {
			continue
		}
		path := filepath.Join(t.TempDir(), ID+".desktop")
		if err := os.WriteFile(path, entry, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec2(validate, path); err != nil || strings.Contains(out, "error:") || strings.Contains(out, "warning:") {
			t.Errorf("%s: desktop-file-validate: %v\n%s", tt.name, err, out)
		}
	}
	if verr != nil {
		t.Log("desktop-file-validate is not installed: Exec was checked, the rest of the entry not")
	}
}

func exec2(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

// TestLaunchAgentRunsTheHub: the plist is XML whose ProgramArguments are
// the binary and the hub's arguments, run at load and not kept alive.
func TestLaunchAgentRunsTheHub(t *testing.T) {
	for _, tt := range targets {
		var plist struct {
			Dict struct {
				Items []struct {
					XMLName xml.Name
					Value   string   `xml:",chardata"`
					Strings []string `xml:"string"`
				} `xml:",any"`
			} `xml:"dict"`
		}
		b := LaunchAgent(tt.unix)
		if err := xml.Unmarshal(b, &plist); err != nil {
			t.Fatalf("%s: the LaunchAgent is no XML: %v\n%s", tt.name, err, b)
		}
		got := map[string]string{}
		var args []string
		items := plist.Dict.Items
		for i := 0; i+1 < len(items); i += 2 {
			key, v := items[i].Value, items[i+1]
			got[key] = v.XMLName.Local + ":" + v.Value
			if key == "ProgramArguments" {
				args = v.Strings
			}
		}
		if want := append([]string{tt.unix.Exe}, tt.unix.args()...); !cmp.Equal(args, want) {
			t.Errorf("%s: ProgramArguments %q, want %q", tt.name, args, want)
		}
		for k, want := range map[string]string{"Label": "string:" + ID, "RunAtLoad": "true:", "KeepAlive": "false:"} {
			if got[k] != want {
				t.Errorf("%s: %s is %q, want %q", tt.name, k, got[k], want)
			}
		}
		if programOf(b) != tt.unix.Exe {
			t.Errorf("%s: status would read the binary as %q, want %q", tt.name, programOf(b), tt.unix.Exe)
		}
	}
}

// TestWindowsRunCommandParses: the Run value, split as CommandLineToArgvW
// splits it, gives back the binary and the hub's arguments.
func TestWindowsRunCommandParses(t *testing.T) {
	for _, tt := range targets {
		cmd := WindowsRunCommand(tt.win)
		if got, want := argvW(cmd), append([]string{tt.win.Exe}, tt.win.args()...); !cmp.Equal(got, want) {
			t.Errorf("%s: %s splits into %q, want %q", tt.name, cmd, got, want)
		}
	}
}

func keyOf(t *testing.T, entry []byte, key string) string {
	t.Helper()
	for line := range strings.SplitSeq(string(entry), "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return v
		}
	}
	t.Fatalf("the entry has no %s key:\n%s", key, entry)
	return ""
}

// desktopArgs splits an Exec value as the Desktop Entry Specification
// says: the value's string escapes first, then arguments, quoted ones with
// backslash escapes inside.
func desktopArgs(t *testing.T, v string) []string {
	t.Helper()
	var unesc strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
			switch v[i] {
			case 's':
				unesc.WriteByte(' ')
			case 'n':
				unesc.WriteByte('\n')
			case 't':
				unesc.WriteByte('\t')
			case 'r':
				unesc.WriteByte('\r')
			default:
				unesc.WriteByte(v[i])
			}
			continue
		}
		unesc.WriteByte(v[i])
	}
	s := unesc.String()
	var args []string
	for i := 0; i < len(s); {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			break
		}
		var arg strings.Builder
		if s[i] == '"' {
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				arg.WriteByte(s[i])
				i++
			}
			if i >= len(s) {
				t.Fatalf("Exec=%s: an unclosed quote", v)
			}
			i++
		} else {
			for i < len(s) && s[i] != ' ' {
				arg.WriteByte(s[i])
				i++
			}
		}
		args = append(args, arg.String())
	}
	return args
}

// argvW splits a command line as CommandLineToArgvW does: 2n backslashes
// before a quote are n and the quote toggles quoting, 2n+1 are n and a
// literal quote; other backslashes are themselves.
func argvW(s string) []string {
	var args []string
	var arg strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				arg.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					arg.WriteByte('"')
				} else {
					quoted = !quoted
				}
			} else {
				arg.WriteString(strings.Repeat(`\`, n))
				i--
			}
			inArg = true
		case c == '"':
			quoted = !quoted
			inArg = true
		case c == ' ' && !quoted:
			if inArg {
				args = append(args, arg.String())
				arg.Reset()
				inArg = false
			}
		default:
			arg.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		args = append(args, arg.String())
	}
	return args
}

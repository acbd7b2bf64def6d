package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// State is what an entry in a host's config does with elicitray.
type State string

// The states of an entry.
const (
	// StateWrapped: the entry runs `elicitray wrap …` (any path to a binary
	// named elicitray, first argument wrap).
	StateWrapped State = "wrapped"
	// StateNotWrapped: the entry runs a server command directly.
	StateNotWrapped State = "not wrapped"
	// StateRemote: the entry names a URL (Streamable HTTP or SSE) that the
	// host connects to itself. Wrap turns it into a command entry running
	// `elicitray wrap --url` (remote.go); Entry.Note says why when it cannot.
	StateRemote State = "remote"
	// StateUnsupported: the entry has neither a command elicitray can read
	// nor a URL (a Zed extension's settings, say); Entry.Note says why.
	StateUnsupported State = "unsupported"
)

// Entry is one server entry of a host's config, as read from the file.
type Entry struct {
	// Key is the entry's key in the servers table: the name the host shows,
	// and the NAME that Wrap passes to `elicitray wrap --name`.
	Key   string `json:"key"`
	State State  `json:"state"`
	// Command and Args are the entry's command line as configured. For a
	// wrapped entry Command is the elicitray binary.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// URL is a remote entry's address (url, serverUrl or httpUrl), and a
	// wrapped remote entry's --url.
	URL string `json:"url,omitempty"`
	// Headers are the names of the HTTP headers a remote entry (or a
	// wrapped one) sends, in file order. Their values are never shown:
	// they are often secrets.
	Headers []string `json:"headers,omitempty"`
	// Server is the server's own command line: what follows wrap's flags in
	// a wrapped entry, Command and Args otherwise; none for a wrapped remote
	// entry, whose server is URL.
	Server []string `json:"server,omitempty"`
	// Name is a wrapped entry's --name ("" when it has none).
	Name string `json:"name,omitempty"`
	// Binary is a wrapped entry's elicitray binary, and BinaryExists
	// whether a file is still there (false when the user moved it: Wrap
	// then points the entry at the running binary).
	Binary       string `json:"binary,omitempty"`
	BinaryExists bool   `json:"binaryExists,omitempty"`
	// Note says why an entry is StateUnsupported, or why a remote entry
	// cannot be wrapped (a secret in its URL, say); "" when it can.
	Note string `json:"note,omitempty"`
}

// Wrappable reports whether Wrap would put elicitray in front of e: a
// server command, or a remote server it can reach (no Note against it).
func (e Entry) Wrappable() bool {
	return e.State == StateNotWrapped || e.State == StateRemote && e.Note == ""
}

// Errors of Read, Wrap and Unwrap; each comes wrapped with the file's path
// and the entry's key.
var (
	// ErrSyntax: the file is not valid JSON (with comments) or TOML. The
	// message has the line and column.
	ErrSyntax = errors.New("syntax error")
	// ErrUnknownServer: a key given to Wrap or Unwrap is not in the file.
	ErrUnknownServer = errors.New("no such server")
	// ErrRemote: a key given to Wrap names a remote entry that cannot be
	// wrapped (Entry.Note says why).
	ErrRemote = errors.New("remote server that elicitray cannot wrap")
	// ErrUnsupported: a key given to Wrap or Unwrap names an entry
	// elicitray cannot edit (see Entry.Note).
	ErrUnsupported = errors.New("entry cannot be edited")
	// ErrEmptyKey: a key given to Wrap is "": `elicitray wrap --name ""`
	// would name the server nothing, and prompts and the history would
	// call it "elicitray".
	ErrEmptyKey = errors.New("the server's name is empty")
	// ErrBinaryName: the binary given to Wrap is not named elicitray
	// (elicitray.exe on Windows), which is how wrapped entries are known.
	ErrBinaryName = errors.New("the binary is not named elicitray")
)

// Read returns the server entries of data, the contents of the file at loc,
// in file order. An empty file, or one without the servers table, has no
// entries. A wrapped entry's BinaryExists is looked up in the file system.
func Read(data []byte, loc Location) ([]Entry, error) {
	raws, err := parse(data, loc)
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, len(raws))
	for i, r := range raws {
		entries[i] = r.Entry
	}
	return entries, nil
}

// ReadFile reads the file at loc.Path and returns its entries (see Read).
// A missing file is an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadFile(loc Location) ([]Entry, error) {
	data, err := ReadConfig(loc.Path)
	if err != nil {
		return nil, err
	}
	return Read(data, loc)
}

func syntaxOf(f Format) (syntax, error) {
	switch f {
	case FormatJSON:
		return jsoncSyntax{}, nil
	case FormatTOML:
		return tomlSyntax{}, nil
	}
	return nil, fmt.Errorf("unknown config format %q", f)
}

func parse(data []byte, loc Location) ([]rawEntry, error) {
	syn, err := syntaxOf(loc.Format)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil // a config created empty: no servers yet
	}
	raws, err := syn.entries(data, loc.Servers)
	var se *syntaxError
	if errors.As(err, &se) {
		return nil, fmt.Errorf("%s:%w", loc.Path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc.Path, err)
	}
	exists := map[string]bool{} // each binary looked up once, however many entries run it
	for i := range raws {
		raws[i].host = loc.dialect()
		classify(&raws[i], exists)
	}
	return raws, nil
}

// classify sets the entry's State and the fields that follow from it;
// exists caches binaryExists by binary.
func classify(r *rawEntry, exists map[string]bool) {
	e := &r.Entry
	switch {
	case e.State == StateUnsupported:
	case r.cmd == nil && e.URL != "":
		e.State = StateRemote
		for _, h := range r.remote.headers {
			e.Headers = append(e.Headers, h.name)
		}
		e.Note = remoteBlocker(r)
	case r.cmd == nil:
		e.State = StateUnsupported
		if e.Note == "" {
			e.Note = "it has neither a command nor a url"
		}
	case IsElicitray(e.Command) && len(e.Args) > 0 && e.Args[0] == "wrap":
		e.State = StateWrapped
		e.Binary = e.Command
		ok, looked := exists[e.Binary]
		if !looked {
			ok = binaryExists(e.Binary)
			exists[e.Binary] = ok
		}
		e.BinaryExists = ok
		f := wrapFlags(e.Args)
		e.Name = f.name
		switch {
		case f.url != "":
			e.URL = f.url
			e.Headers = f.headerNames()
		case f.at < len(e.Args):
			e.Server = e.Args[f.at:]
		}
	default:
		e.State = StateNotWrapped
		e.Server = append([]string{e.Command}, e.Args...)
	}
}

// binaryExists reports whether the binary a wrapped entry runs is there: a
// path is looked at, a bare name ("elicitray") looked up in PATH as the
// host would.
func binaryExists(bin string) bool {
	if !strings.ContainsAny(bin, `/\`) {
		_, err := exec.LookPath(bin)
		return err == nil
	}
	_, err := os.Stat(bin)
	return err == nil
}

// IsElicitray reports whether command names an elicitray binary, whatever
// its directory: its base name is elicitray (elicitray.exe, any case, on
// Windows). A wrapped entry is recognised by this, not by the path of the
// running binary, so a moved binary is still recognised.
func IsElicitray(command string) bool {
	base := command
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	return base == "elicitray" || strings.EqualFold(base, "elicitray.exe")
}

// wrapArgs is what wrapFlags reads from the args of a wrapped entry.
type wrapArgs struct {
	name string
	url  string // --url: a wrapped remote entry; "" for a command
	// headers are the --header, --header-env and --bearer-env flags, in
	// order.
	headers []wrapHeader
	// at is the index of the server's COMMAND in args (len(args) when
	// there is none).
	at int
}

// wrapHeader is one header flag of `elicitray wrap --url`.
type wrapHeader struct {
	flag  string // "--header", "--header-env" or "--bearer-env"
	value string // "Name: value", "Name=VAR" or "VAR"
}

// name returns the header's name.
func (h wrapHeader) name() string {
	switch h.flag {
	case "--bearer-env":
		return "Authorization"
	case "--header-env":
		n, _, _ := strings.Cut(h.value, "=")
		return n
	}
	n, _, _ := strings.Cut(h.value, ":")
	return strings.TrimSpace(n)
}

func (f wrapArgs) headerNames() []string {
	var out []string
	for _, h := range f.headers {
		out = append(out, h.name())
	}
	return out
}

// wrapValueFlags are the flags of `elicitray wrap` that take a value.
var wrapValueFlags = []string{"--name", "--grace", "--url", "--header", "--header-env", "--bearer-env"}

// wrapFlags reads `wrap [--name NAME] [--grace D] [--url URL [--header H]…]
// [--] COMMAND…`.
func wrapFlags(args []string) wrapArgs {
	var f wrapArgs
	set := func(flag, v string) {
		switch flag {
		case "--name":
			f.name = v
		case "--url":
			f.url = v
		case "--header", "--header-env", "--bearer-env":
			f.headers = append(f.headers, wrapHeader{flag, v})
		}
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			f.at = i + 1
			return f
		}
		if flag, v, ok := strings.Cut(a, "="); ok && slices.Contains(wrapValueFlags, flag) {
			set(flag, v)
			continue
		}
		if slices.Contains(wrapValueFlags, a) {
			if i+1 < len(args) {
				set(a, args[i+1])
			}
			i++
			continue
		}
		if !strings.HasPrefix(a, "-") {
			f.at = i
			return f
		}
	}
	f.at = len(args)
	return f
}

// syntaxError is a parse error at a line and column (both from 1; 0 when
// the parser did not say). Its text starts "LINE:COL: " so that with the
// path in front it reads as editors and compilers write positions.
type syntaxError struct {
	line, col int
	msg       string
}

func (e *syntaxError) Error() string {
	if e.line == 0 {
		return " " + e.msg
	}
	return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg)
}

func (e *syntaxError) Unwrap() error { return ErrSyntax }

// lineCol returns the 1-based line and column (in bytes) of offset.
func lineCol(data []byte, offset int) (line, col int) {
	before := data[:min(offset, len(data))]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, offset - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

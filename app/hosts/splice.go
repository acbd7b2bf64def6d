package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Wrap and Unwrap as byte splices, shared by both formats: a format's
// parser (jsonc.go, toml.go) finds each entry's tokens and their offsets,
// and what is spliced here is the same for JSON and TOML arrays.

// Outcome is what Wrap or Unwrap did to one entry.
type Outcome string

// The outcomes.
const (
	Wrapped        Outcome = "wrapped"
	AlreadyWrapped Outcome = "already wrapped"
	// Repointed: the entry was wrapped with a binary that no longer exists,
	// and now runs the given one.
	Repointed  Outcome = "repointed"
	Unwrapped  Outcome = "unwrapped"
	NotWrapped Outcome = "not wrapped" // Unwrap: nothing to take out
	// Skipped: an unsupported entry, or a remote one that cannot be
	// wrapped, left as it is (Change.Note says why).
	Skipped Outcome = "skipped"
)

// Change reports what Wrap or Unwrap did to one entry.
type Change struct {
	Key     string
	Outcome Outcome
	// Note is, for Skipped, the reason, a phrase ("remote https://…: its
	// url may hold a secret…"); for a remote entry Wrapped, its URL and
	// where each header's value went ("remote https://…; Authorization
	// from ${TOKEN}, through the entry's env").
	Note  string
	Entry Entry // the entry as it reads after the change
}

// Wrap returns data (the contents of the file at loc) with the entries named
// by keys rewritten to run `bin wrap --name KEY -- ORIGINAL_COMMAND ARGS…`,
// and remote ones `bin wrap --name KEY --url URL [header flags]` in the
// host's command form (remote.go; Change.Note says where each header
// went); bin should be an absolute path, and its base name must be
// elicitray (ErrBinaryName otherwise). With no keys, every entry is
// wrapped, and unsupported ones and remote ones that cannot be (Entry.Note)
// are Skipped. An entry already wrapped is left alone, unless its binary no
// longer exists: then it is pointed at bin (Repointed). Every other byte of
// data stays as it was.
//
// Naming a key that is not there, a remote entry that cannot be wrapped, an
// unsupported one or the empty key is an error (ErrUnknownServer,
// ErrRemote, ErrUnsupported, ErrEmptyKey) and nothing changes; with no
// keys, an entry whose key is empty is Skipped.
func Wrap(data []byte, loc Location, keys []string, bin string) ([]byte, []Change, error) {
	if !IsElicitray(bin) {
		return nil, nil, fmt.Errorf("%w: %s (entries it wrapped would not be recognised as wrapped: install it as elicitray, or run it through a link named elicitray, such as ~/.local/bin/elicitray)", ErrBinaryName, bin)
	}
	return edit(data, loc, keys, func(syn syntax, data []byte, r *rawEntry) ([]splice, Change, error) {
		return wrapEntry(syn, data, r, bin)
	})
}

// Unwrap returns data with the entries named by keys (every entry when keys
// is empty) running their server command directly again, or connecting to
// their URL again, undoing Wrap byte for byte. Entries that are not wrapped
// are reported NotWrapped and left alone. A key that is not there is
// ErrUnknownServer.
//
// Two shapes Unwrap cannot read back alone, and takes from opts.Earlier
// (see UnwrapOptions): an args member exactly as Wrap adds one (with no
// backup showing an empty args there, it is taken out), and a wrapped
// remote entry (with no backup showing it, its remote form is written
// from its flags and env, in the host's form and the entry's style).
func Unwrap(data []byte, loc Location, keys []string, opts *UnwrapOptions) ([]byte, []Change, error) {
	orig := newOriginals(loc, opts)
	defer orig.close()
	return edit(data, loc, keys, func(syn syntax, data []byte, r *rawEntry) ([]splice, Change, error) {
		return unwrapEntry(syn, data, r, orig)
	})
}

// rawEntry is an entry with the byte positions of what Wrap and Unwrap
// splice: tokens are [start, end) offsets into the file's bytes.
type rawEntry struct {
	Entry
	cmd  *token // the command's string token; nil when there is none
	args *array // the args array; nil when the entry has no args member
	// addAt is where an args member goes when the entry has none (right
	// after the command), addPre the bytes before its key there (",\n    "
	// in JSON), argsKey its key as written (`"args"`, `args`) and sep what
	// separates key and value, copied from the command member (`: `, ` = `).
	addAt   int
	addPre  string
	argsKey string
	sep     string
	// argsStart is the offset of the args member's key (when args != nil).
	argsStart int

	// What remote entries are wrapped and unwrapped with (remote.go):
	host    string        // Location.dialect: the host whose remote form the entry has
	toml    bool          // the entry is TOML
	inline  bool          // TOML: the entry is an inline table
	members []entryMember // the entry's own members, in file order
	// region is the entry's bytes: the JSON object, the TOML inline table,
	// or a TOML table's lines, from its first member to the next table
	// header after its last (its sub-tables with it).
	region [2]int
	// remote is a remote entry's URL, type and headers; remoteNote why
	// they cannot be read ("" when they can).
	remote     *remote
	remoteNote string
	// pieces are TOML lines that belong to the remote form beyond its
	// members: [mcp_servers.x.http_headers] sub-tables and their keys, and
	// dotted http_headers.NAME keys.
	pieces [][2]int
	// env is the entry's env map by name, envOrder its names in file order.
	env      map[string]envVal
	envOrder []string
}

type token struct {
	start, end int
	value      string
}

// array is a JSON or TOML array of strings: open and close are the offsets
// of its brackets.
type array struct {
	open, close int
	elems       []token
}

// splice replaces data[start:end] with text.
type splice struct {
	start, end int
	text       string
}

// syntax is what a file format gives the shared Wrap and Unwrap.
type syntax interface {
	// entries parses data and returns the entries of the table at servers.
	entries(data []byte, servers []string) ([]rawEntry, error)
	// quote returns s as a string token of the format.
	quote(s string) string
	// keyText returns s as a key of the format: quoted in JSON, bare in
	// TOML where it can be.
	keyText(s string) string
}

var (
	_ syntax = jsoncSyntax{}
	_ syntax = tomlSyntax{}
)

type editFunc func(syn syntax, data []byte, r *rawEntry) ([]splice, Change, error)

// edit applies fn to the chosen entries, then reads the result back to
// check it: a splice that did not give the entry fn meant is never written.
func edit(data []byte, loc Location, keys []string, fn editFunc) ([]byte, []Change, error) {
	syn, err := syntaxOf(loc.Format)
	if err != nil {
		return nil, nil, err
	}
	raws, err := parse(data, loc)
	if err != nil {
		return nil, nil, err
	}
	chosen := raws
	if len(keys) > 0 {
		byKey := indexKeys(len(raws), func(i int) string { return raws[i].Key })
		chosen = nil
		for _, k := range keys {
			i, ok := byKey[k]
			if !ok {
				return nil, nil, fmt.Errorf("%w %q in %s", ErrUnknownServer, k, loc.Path)
			}
			chosen = append(chosen, raws[i])
		}
	}
	all := len(keys) == 0
	var splices []splice
	var changes []Change
	for i := range chosen {
		r := &chosen[i]
		s, c, err := fn(syn, data, r)
		if err != nil {
			if all && (errors.Is(err, ErrRemote) || errors.Is(err, ErrUnsupported)) {
				changes = append(changes, Change{Key: r.Key, Outcome: Skipped, Note: skipNote(r.Entry), Entry: r.Entry})
				continue
			}
			if all && errors.Is(err, ErrEmptyKey) {
				changes = append(changes, Change{Key: r.Key, Outcome: Skipped, Note: "its name is empty, and elicitray wrap --name needs one: name it in the file first", Entry: r.Entry})
				continue
			}
			return nil, nil, fmt.Errorf("%s: %w", loc.Path, err)
		}
		splices = append(splices, s...)
		changes = append(changes, c)
	}
	out := apply(data, splices)
	if len(splices) == 0 {
		return out, changes, nil
	}
	after, err := Read(out, loc)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: editing gave a file that does not parse: %w", loc.Path, err)
	}
	byKey := indexKeys(len(after), func(i int) string { return after[i].Key })
	for i, c := range changes {
		j, ok := byKey[c.Key]
		if !ok || !sameOutcome(c, after[j]) {
			return nil, nil, fmt.Errorf("%s: editing %q did not give the entry elicitray meant", loc.Path, c.Key)
		}
		changes[i].Entry = after[j]
	}
	return out, changes, nil
}

// sameOutcome checks that an entry read back from the edited file is what
// the change promised.
func sameOutcome(c Change, got Entry) bool {
	want := c.Entry
	switch c.Outcome {
	case Wrapped, Repointed, AlreadyWrapped:
		return got.State == StateWrapped && got.Binary == want.Binary && slices.Equal(got.Server, want.Server) && got.URL == want.URL
	case Unwrapped:
		return got.State == want.State && slices.Equal(got.Server, want.Server) && got.URL == want.URL
	}
	return got.State == want.State
}

func skipNote(e Entry) string {
	if e.State == StateRemote {
		return "remote " + e.URL + ": " + e.Note
	}
	return e.Note
}

// wrapEntry is Wrap for one entry.
func wrapEntry(syn syntax, data []byte, r *rawEntry, bin string) ([]splice, Change, error) {
	e := r.Entry
	switch e.State {
	case StateRemote:
		return wrapRemote(syn, data, r, bin)
	case StateUnsupported:
		return nil, Change{}, fmt.Errorf("%q: %w: %s", e.Key, ErrUnsupported, e.Note)
	case StateWrapped:
		if e.BinaryExists || e.Binary == bin {
			return nil, Change{Key: e.Key, Outcome: AlreadyWrapped, Entry: e}, nil
		}
		want := e
		want.Binary = bin
		return []splice{{r.cmd.start, r.cmd.end, syn.quote(bin)}}, Change{Key: e.Key, Outcome: Repointed, Entry: want}, nil
	}
	if e.Key == "" {
		return nil, Change{}, fmt.Errorf(`%w: elicitray wrap --name needs a name (prompts and the history would call the server "elicitray"); give the entry a name in the file first`, ErrEmptyKey)
	}
	// The new elements, then the original command token moved as it is
	// (escapes and quoting style included), so Unwrap can move it back.
	lits := []string{syn.quote("wrap"), syn.quote("--name"), syn.quote(e.Key), syn.quote("--"), string(data[r.cmd.start:r.cmd.end])}
	s := []splice{{r.cmd.start, r.cmd.end, syn.quote(bin)}}
	switch {
	case r.args == nil:
		s = append(s, splice{r.addAt, r.addAt, r.addPre + r.argsKey + r.sep + "[" + strings.Join(lits, ", ") + "]"})
	case len(r.args.elems) == 0:
		s = append(s, splice{r.args.open + 1, r.args.open + 1, strings.Join(lits, ", ")})
	default:
		sep := elemSep(data, r.args)
		s = append(s, splice{r.args.elems[0].start, r.args.elems[0].start, strings.Join(lits, sep) + sep})
	}
	want := e
	want.Binary = bin
	return s, Change{Key: e.Key, Outcome: Wrapped, Entry: want}, nil
}

// elemSep returns what separates the array's elements (", " or ",\n    "),
// copied from the file so that inserted elements look like the others.
func elemSep(data []byte, a *array) string {
	if len(a.elems) >= 2 {
		between := data[a.elems[0].end:a.elems[1].start]
		if bytes.Count(between, []byte(",")) == 1 && isSpace(bytes.Replace(between, []byte(","), nil, 1)) {
			return string(between)
		}
	}
	inner := data[a.open+1 : a.elems[0].start]
	if isSpace(inner) && bytes.Contains(inner, []byte("\n")) {
		return "," + string(inner)
	}
	return ", "
}

func isSpace(b []byte) bool {
	return len(bytes.Trim(b, " \t\r\n")) == 0
}

// unwrapEntry is Unwrap for one entry: the inverse of wrapEntry. The one
// entry whose original bytes it cannot tell is an args member exactly as
// wrapEntry adds one, right after the command: the entry may have had no
// args, or an `"args": []` there, and both wrap to the same bytes. For
// that one it asks orig (see restore.go), and takes the member out when
// orig does not know.
func unwrapEntry(syn syntax, data []byte, r *rawEntry, orig *originals) ([]splice, Change, error) {
	e := r.Entry
	if e.State != StateWrapped {
		return nil, Change{Key: e.Key, Outcome: NotWrapped, Entry: e}, nil
	}
	if r.remoteWrapped() {
		return unwrapRemote(syn, data, r, orig)
	}
	at := wrapFlags(e.Args).at
	if at >= len(e.Args) {
		return nil, Change{}, fmt.Errorf("%q: %w: its `elicitray wrap` has no server command after it", e.Key, ErrUnsupported)
	}
	want := e
	want.State = StateNotWrapped
	want.Server = e.Server
	change := Change{Key: e.Key, Outcome: Unwrapped, Entry: want}
	el := r.args.elems
	s := []splice{{r.cmd.start, r.cmd.end, string(data[el[at].start:el[at].end])}}
	switch {
	case len(el) > at+1:
		s = append(s, splice{el[0].start, el[at+1].start, ""})
	case r.addedArgs(data):
		if text, ok := orig.region(syn, data, r); ok {
			return []splice{{r.cmd.start, r.args.close + 1, text}}, change, nil
		}
		s = append(s, splice{r.addAt, r.args.close + 1, ""})
	default:
		s = append(s, splice{el[0].start, el[at].end, ""})
	}
	return s, change, nil
}

// remoteWrapped reports whether r is a wrapped remote entry (`wrap --url`).
func (r *rawEntry) remoteWrapped() bool {
	return r.State == StateWrapped && wrapFlags(r.Args).url != ""
}

// addedArgs reports whether the entry's args member sits exactly where and
// as wrapEntry adds one to an entry that had none: right after the command,
// its elements separated by ", " and nothing else inside the brackets. An
// empty array that was there before wrap, with a space or a comment inside
// (`[ /* none */ ]`), keeps that inside after its elements, so it is not
// taken for an added one.
func (r *rawEntry) addedArgs(data []byte) bool {
	start := r.addAt + len(r.addPre) + len(r.argsKey) + len(r.sep)
	if r.argsStart != r.addAt+len(r.addPre) || start != r.args.open ||
		string(data[r.addAt:start]) != r.addPre+r.argsKey+r.sep {
		return false
	}
	el := r.args.elems
	if len(el) == 0 || el[0].start != r.args.open+1 || el[len(el)-1].end != r.args.close {
		return false
	}
	for i := 1; i < len(el); i++ {
		if string(data[el[i-1].end:el[i].start]) != ", " {
			return false
		}
	}
	return true
}

// indexKeys maps each of n keys (key(i) for i in [0, n)) to its index.
func indexKeys(n int, key func(int) string) map[string]int {
	m := make(map[string]int, n)
	for i := range n {
		m[key(i)] = i
	}
	return m
}

// apply makes the splices, which must not overlap, and returns a new slice:
// one pass over data, copying each byte once, however many splices there
// are (splicing one at a time copied the whole file per splice).
func apply(data []byte, splices []splice) []byte {
	slices.SortStableFunc(splices, func(a, b splice) int { return a.start - b.start })
	n := len(data)
	for _, s := range splices {
		n += len(s.text) - (s.end - s.start)
	}
	out := make([]byte, 0, n)
	at := 0
	for _, s := range splices {
		out = append(append(out, data[at:s.start]...), s.text...)
		at = s.end
	}
	return append(out, data[at:]...)
}

// lineIndent returns the spaces and tabs between the start of the line
// holding offset and offset, or "" when anything else comes first.
func lineIndent(data []byte, offset int) string {
	i := offset
	for i > 0 && (data[i-1] == ' ' || data[i-1] == '\t') {
		i--
	}
	if i > 0 && data[i-1] != '\n' {
		return ""
	}
	return string(data[i:offset])
}

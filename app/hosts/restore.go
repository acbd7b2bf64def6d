package hosts

import "iter"

// Exact Unwrap of the one shape the wrapped bytes cannot tell: an entry
// whose args Wrap added, and one that had an empty args in that very place,
// wrap to the same bytes. The backup Wrap made holds the entry as it was;
// Unwrap takes its bytes back from there.

// UnwrapOptions are Unwrap's options; nil means none.
type UnwrapOptions struct {
	// Earlier yields earlier contents of the file, newest first: its
	// backups, as Earlier(path) reads them. Unwrap reads from it only for
	// an entry whose args look exactly as Wrap adds them, and no further
	// than the first version that shows what the entry was. Nil: such an
	// entry loses its args member, as if Wrap had added it.
	Earlier iter.Seq[[]byte]
}

// originals finds, in the earlier versions of a file, the bytes a wrapped
// entry had before Wrap. Each version is read and parsed once, when first
// needed.
type originals struct {
	loc      Location
	next     func() ([]byte, bool) // nil: no more versions
	stop     func()
	versions []version
}

// version is one earlier content of the file and its entries by key (nil
// when it does not parse).
type version struct {
	data  []byte
	byKey map[string]*rawEntry
}

func newOriginals(loc Location, opts *UnwrapOptions) *originals {
	o := &originals{loc: loc}
	if opts != nil && opts.Earlier != nil {
		o.next, o.stop = iter.Pull(opts.Earlier)
	}
	return o
}

func (o *originals) close() {
	if o.stop != nil {
		o.stop()
	}
}

// read parses the next earlier version; false when there is none.
func (o *originals) read() bool {
	if o.next == nil {
		return false
	}
	data, ok := o.next()
	if !ok {
		o.next = nil
		return false
	}
	v := version{data: data}
	if raws, err := parse(data, o.loc); err == nil {
		v.byKey = make(map[string]*rawEntry, len(raws))
		for i := range raws {
			v.byKey[raws[i].Key] = &raws[i]
		}
	}
	o.versions = append(o.versions, v)
	return true
}

// region returns what the bytes of r from its command to the end of its
// args were before Wrap: those of the newest earlier version whose entry of
// the same key is not wrapped and, wrapped with r's binary, reads byte for
// byte as r does now. False when no version has such an entry (the backups
// were removed, or the entry was edited since).
func (o *originals) region(syn syntax, data []byte, r *rawEntry) (string, bool) {
	now := string(data[r.cmd.start : r.args.close+1])
	for i := 0; i < len(o.versions) || o.read(); i++ {
		v := o.versions[i]
		was := v.byKey[r.Key]
		if was == nil || was.State != StateNotWrapped {
			continue
		}
		lo, hi := was.cmd.start, was.addAt
		if was.args != nil {
			if was.args.open < was.cmd.end {
				continue // its args come before the command: r's do not
			}
			hi = was.args.close + 1
		}
		s, _, err := wrapEntry(syn, v.data, was, r.Command)
		if err != nil {
			continue
		}
		if wrapped, ok := applyWithin(v.data, lo, hi, s); ok && wrapped == now {
			return string(v.data[lo:hi]), true
		}
	}
	return "", false
}

// applyWithin returns data[lo:hi] with the splices made, or false when one
// reaches outside it.
func applyWithin(data []byte, lo, hi int, splices []splice) (string, bool) {
	local := make([]splice, len(splices))
	for i, s := range splices {
		if s.start < lo || s.end > hi {
			return "", false
		}
		local[i] = splice{s.start - lo, s.end - lo, s.text}
	}
	return string(apply(data[lo:hi], local)), true
}

// remoteRegion returns what the bytes of the wrapped remote entry r's
// region were before Wrap: those of the newest earlier version whose entry
// of the same key is remote and, wrapped with r's binary, reads byte for
// byte as r does now. False when no version has such an entry.
func (o *originals) remoteRegion(syn syntax, data []byte, r *rawEntry) (string, bool) {
	now := string(data[r.region[0]:r.region[1]])
	for i := 0; i < len(o.versions) || o.read(); i++ {
		v := o.versions[i]
		was := v.byKey[r.Key]
		if was == nil || was.State != StateRemote || was.Note != "" {
			continue
		}
		s, _, err := wrapRemote(syn, v.data, was, r.Command)
		if err != nil {
			continue
		}
		if wrapped, ok := applyWithin(v.data, was.region[0], was.region[1], s); ok && wrapped == now {
			return string(v.data[was.region[0]:was.region[1]]), true
		}
	}
	return "", false
}

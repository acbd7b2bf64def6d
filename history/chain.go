package history

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The chain (doc.go, "The chain"): each record's value holds its seal, the
// first linkLen bytes of the SHA-256 of its export line without the
// "hash" member, a line that names the seal before it ("prev"). Records
// removed by elicitray are stood for by a checkpoint, kept under the ID
// of the record after them, that holds the seal before them and the seal
// of the last of them, so that the seals go on unbroken.

// linkLen is the length of a seal: 128 bits of SHA-256.
const linkLen = 16

// link is a seal.
type link [linkLen]byte

func (l link) String() string { return hex.EncodeToString(l[:]) }

var (
	// bucketRemoved holds the gaps: the ID of the record after the
	// removed ones (8 bytes) → gap value (gap.encode).
	bucketRemoved = []byte("removed")
	// bucketCheckpoints holds the sealed checkpoints: number (8 bytes) →
	// seal and sealed form (addCheckpoint).
	bucketCheckpoints = []byte("checkpoints")
	// keyHead, in meta, is the seal of the newest record ever added: the
	// one the next record's line names.
	keyHead = []byte("chain-head")
	// keyUpgradingChain marks a file whose records are being sealed for
	// the first time: the last ID sealed (8 bytes) and its seal.
	keyUpgradingChain = []byte("upgrading-chain")
)

// Why records were removed, as checkpoints say it.
const (
	whyPruned  = "pruned"
	whyDeleted = "deleted"
	whyCleared = "cleared"
	// whyBefore stands for records removed before the file had a chain:
	// their seals were never made, and the checkpoint's seals are equal.
	whyBefore = "removed before the history was sealed"
)

// line is a record as its seal covers it: the JSON Lines export's line
// without "hash", which exportLine adds.
type line struct {
	Record
	Prev string `json:"prev"`
}

// sealedForm returns what the seal of r covers when prev is the seal
// before it: r's export line without its hash, as json.Marshal writes
// it.
func sealedForm(r Record, prev link) ([]byte, error) {
	body, err := formBody(r)
	if err != nil {
		return nil, err
	}
	return appendTail(body, prev), nil
}

// appendTail appends to a form's body (formBody) its end: prev, the seal
// before it, and the close of the line.
func appendTail(body []byte, prev link) []byte {
	return append(hex.AppendEncode(body, prev[:]), `"}`...)
}

// formBody returns r's sealed form up to the seal before it: all but that
// seal's hex and the closing `"}`. The requestedSchema is most of a line,
// and a few schemas are most of a history's: Marshal writes a stand-in (0)
// for it, and the schema as Marshal writes it (compacted, HTML escaped)
// comes from schemaFacts. The first `"requestedSchema":0` is the
// stand-in: the members before it hold only numbers and strings, and a
// quote inside a string is escaped.
func formBody(r Record) ([]byte, error) {
	schema := r.RequestedSchema
	if len(schema) > 0 {
		r.RequestedSchema = json.RawMessage("0")
	}
	form, err := json.Marshal(line{Record: r})
	if err != nil {
		return nil, err
	}
	form = form[:len(form)-len(`"}`)]
	if len(schema) == 0 {
		return form, nil
	}
	written, err := schemaFacts.form(schema)
	if err != nil {
		return nil, err
	}
	at := bytes.Index(form, []byte(standIn)) + len(standIn) - 1
	out := make([]byte, 0, len(form)+len(written)+2*linkLen+2)
	out = append(out, form[:at]...)
	out = append(out, written...)
	return append(out, form[at+1:]...), nil
}

const standIn = `"requestedSchema":0`

// sealOf returns the seal of a sealed form.
func sealOf(form []byte) link {
	sum := sha256.Sum256(form)
	return link(sum[:linkLen])
}

// exportLine returns the export line of a sealed form whose seal is h:
// form with the member "hash" last.
func exportLine(form []byte, h link) []byte {
	out := make([]byte, 0, len(form)+len(`,"hash":""}`)+2*linkLen+1)
	out = append(out, form[:len(form)-1]...)
	out = append(out, `,"hash":"`...)
	out = hex.AppendEncode(out, h[:])
	return append(out, "\"}\n"...)
}

// seal sets the seal of the value v (valueV6 or later) of the record with
// key k, whose seal before it is prev: it reads the record as Get will,
// and returns it and its seal.
func seal(rd *reader, k, v []byte, prev link) (Record, link, error) {
	var rr rawRecord
	if err := rr.parse(v); err != nil {
		return Record{}, link{}, err
	}
	if rr.link == nil {
		return Record{}, link{}, fmt.Errorf("record %d: %w", keyID(k), errBadValue)
	}
	r, err := rd.record(k, &rr)
	if err != nil {
		return Record{}, link{}, err
	}
	form, err := sealedForm(r, prev)
	if err != nil {
		return Record{}, link{}, fmt.Errorf("sealing record %d: %w", r.ID, err)
	}
	l := sealOf(form)
	copy(v[1:], l[:])
	return r, l, nil
}

// head returns the seal the next record added will name before it.
func head(tx *bolt.Tx) link {
	var l link
	copy(l[:], tx.Bucket(bucketMeta).Get(keyHead))
	return l
}

func setHead(tx *bolt.Tx, l link) error {
	return tx.Bucket(bucketMeta).Put(keyHead, bytes.Clone(l[:]))
}

// gap stands for the records first to the one before the record it is
// kept under (its successor), removed from the history: it keeps the seal
// before them and the seal of the last of them, so that the chain of
// records goes on. What was removed, when and why, is said by the sealed
// checkpoints (checkpoint).
type gap struct {
	first      uint64
	prev, hash link
}

func (g gap) encode() []byte {
	v := binary.BigEndian.AppendUint64(nil, g.first)
	v = append(v, g.prev[:]...)
	return append(v, g.hash[:]...)
}

func decodeGap(v []byte) (gap, bool) {
	if len(v) != 8+2*linkLen {
		return gap{}, false
	}
	g := gap{first: binary.BigEndian.Uint64(v)}
	copy(g.prev[:], v[8:])
	copy(g.hash[:], v[8+linkLen:])
	return g, true
}

// gapAt returns the gap kept under ID id.
func gapAt(tx *bolt.Tx, id uint64) (gap, bool) {
	v := tx.Bucket(bucketRemoved).Get(idKey(id))
	if v == nil {
		return gap{}, false
	}
	return decodeGap(v)
}

// sealAt returns the seal kept in the value of the record with ID id, and
// false when there is no such record or it has none.
func sealAt(tx *bolt.Tx, id uint64) (link, bool) {
	k, err := keyOfID(tx, id)
	if err != nil || k == nil {
		return link{}, false
	}
	v := tx.Bucket(bucketRecords).Get(k)
	if len(v) < 1+linkLen || v[0] < valueV6 {
		return link{}, false
	}
	return link(v[1 : 1+linkLen]), true
}

// prevOf returns the seal before record id: a checkpoint's, the seal of
// the record before it, or none before the first. false: the record
// before it is missing, and nothing says why (a damaged chain).
func prevOf(tx *bolt.Tx, id uint64) (link, bool) {
	if g, ok := gapAt(tx, id); ok {
		return g.hash, true
	}
	if id <= 1 {
		return link{}, true
	}
	return sealAt(tx, id-1)
}

// reseal seals anew the record with key k, whose value changed, and the
// records after it, whose seals follow from its: up to the first records
// removed, whose checkpoint takes the new seal before them (the seals
// after it stay), or to the newest, whose seal is the head. Each record
// after k is sealed again only when its seal held before (it names the
// old seal before it): a chain broken there by others stays broken, and
// Verify still names the record, rather than elicitray sealing the
// changed text as if it were its own. was is the seal the record had
// before it changed.
func reseal(tx *bolt.Tx, k []byte, was link) error {
	id := keyID(k)
	prev, ok := prevOf(tx, id)
	if !ok {
		return nil
	}
	records := tx.Bucket(bucketRecords)
	rd := newReader(tx)
	last := records.Sequence()
	// was is, from here on, the seal the entry before id had until now.
	for first := id; id <= last; id++ {
		key, err := keyOfID(tx, id)
		if err != nil {
			return err
		}
		if key == nil {
			ck, cv := tx.Bucket(bucketRemoved).Cursor().Seek(idKey(id))
			if g, ok := decodeGap(cv); ck != nil && ok && g.first == id && g.prev == was {
				g.prev = prev
				return tx.Bucket(bucketRemoved).Put(bytes.Clone(ck), g.encode())
			}
			return nil
		}
		v := records.Get(key)
		if len(v) < 1+linkLen || v[0] < valueV6 {
			return nil
		}
		stored := link(v[1 : 1+linkLen])
		if id == first {
			stored = was
		}
		nv := bytes.Clone(v)
		r, l, err := seal(rd, key, nv, prev)
		if err != nil {
			return err
		}
		if id != first {
			if form, err := sealedForm(r, was); err != nil || sealOf(form) != stored {
				return nil // broken here by others: left as it is
			}
		}
		if l == stored {
			return nil // so are the seals after it
		}
		if err := records.Put(key, nv); err != nil {
			return err
		}
		was, prev = stored, l
	}
	if head(tx) != was {
		return nil // the head was changed by others: left as it is
	}
	return setHead(tx, prev)
}

// holds reports whether the record with key k, whose value is v, matches
// its seal.
func holds(tx *bolt.Tx, k, v []byte) bool {
	prev, ok := prevOf(tx, keyID(k))
	if !ok {
		return false
	}
	_, l, err := seal(newReader(tx), k, bytes.Clone(v), prev)
	return err == nil && l == link(v[1:1+linkLen])
}

// cut gathers the records a transaction removes, for their gaps and their
// checkpoint.
type cut []gone

type gone struct {
	id   uint64
	seal link
}

// note notes the removal of record id, whose value's seal is l (nil for a
// value without one).
func (c *cut) note(id uint64, l []byte) {
	r := gone{id: id}
	copy(r.seal[:], l)
	*c = append(*c, r)
}

// checkpoint writes the gaps of the records noted, merged with those of
// records removed before them (one for each run of IDs between records
// that remain), and the sealed checkpoint saying they were removed, at
// the time at, for why.
func (c cut) checkpoint(tx *bolt.Tx, why string, at time.Time) error {
	if len(c) == 0 {
		return nil
	}
	slices.SortFunc(c, func(a, b gone) int { return cmp.Compare(a.id, b.id) })
	removed := tx.Bucket(bucketRemoved)
	last := tx.Bucket(bucketRecords).Sequence()
	ids := tx.Bucket(bucketIDs).Cursor()
	for i := 0; i < len(c); {
		a := c[i].id
		// The record after the run: the first that remains after a.
		next := last + 1
		if k, _ := ids.Seek(idKey(a + 1)); k != nil {
			next = binary.BigEndian.Uint64(k)
		}
		j := i
		for j < len(c) && c[j].id < next {
			j++
		}
		g := gap{first: a, hash: c[j-1].seal}
		if before, ok := gapAt(tx, a); ok {
			g.first, g.prev = before.first, before.prev
		} else {
			g.prev, _ = prevOf(tx, a)
		}
		// Gaps kept under records of the run go into this one.
		var inside [][]byte
		rc := removed.Cursor()
		for k, _ := rc.Seek(idKey(a)); k != nil && binary.BigEndian.Uint64(k) < next; k, _ = rc.Next() {
			inside = append(inside, bytes.Clone(k))
		}
		for _, k := range inside {
			if err := removed.Delete(k); err != nil {
				return err
			}
		}
		if after, ok := gapAt(tx, next); ok {
			g.hash = after.hash
		}
		if err := removed.Put(idKey(next), g.encode()); err != nil {
			return err
		}
		i = j
	}
	var runs [][2]uint64
	for _, r := range c {
		runs = addRun(runs, r.id)
	}
	return addCheckpoint(tx, runs, why, at)
}

// addRun adds id, in increasing order, to runs of consecutive IDs.
func addRun(runs [][2]uint64, id uint64) [][2]uint64 {
	if n := len(runs); n > 0 && runs[n-1][1]+1 == id {
		runs[n-1][1] = id
		return runs
	}
	return append(runs, [2]uint64{id, id})
}

// Checkpoint is a sealed statement that records were removed from the
// history: the runs of IDs Removed (first and last of each), when, why.
// Checkpoints form a chain of their own, numbered from 1, each naming the
// seal of the one before (doc.go, "The chain").
type Checkpoint struct {
	N       uint64      `json:"n"`
	Removed [][2]uint64 `json:"removed"`
	At      time.Time   `json:"at"`
	Why     string      `json:"why"`
}

// checkpointForm returns what the seal of c covers, after the seal prev
// of the checkpoint before it: its export line without its hash.
func checkpointForm(c Checkpoint, prev link) ([]byte, error) {
	return json.Marshal(struct {
		Checkpoint Checkpoint `json:"checkpoint"`
		Prev       string     `json:"prev"`
	}{c, prev.String()})
}

// addCheckpoint seals and keeps the checkpoint of runs removed for why at
// at, after the newest one: in bucketCheckpoints, its number → its seal
// and its sealed form.
func addCheckpoint(tx *bolt.Tx, runs [][2]uint64, why string, at time.Time) error {
	b := tx.Bucket(bucketCheckpoints)
	var prev link
	if _, v := b.Cursor().Last(); len(v) >= linkLen {
		prev = link(v[:linkLen])
	}
	n, err := b.NextSequence()
	if err != nil {
		return err
	}
	form, err := checkpointForm(Checkpoint{N: n, Removed: runs, At: at.UTC(), Why: why}, prev)
	if err != nil {
		return err
	}
	l := sealOf(form)
	return b.Put(idKey(n), append(l[:], form...))
}

// gapLine returns the export line of the gap kept under ID next: no
// statement, the two seals that carry the chain of records over the IDs
// removed; a checkpoint says which and why.
func gapLine(g gap, next uint64) []byte {
	type ids struct {
		First uint64 `json:"first"`
		Last  uint64 `json:"last"`
	}
	b, _ := json.Marshal(struct {
		Removed ids    `json:"removed"`
		Prev    string `json:"prev"`
		Hash    string `json:"hash"`
	}{ids{g.first, next - 1}, g.prev.String(), g.hash.String()})
	return append(b, '\n')
}

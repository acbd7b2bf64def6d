package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Record values, version 2 (doc.go, "Record values"). The first byte tells
// the encodings apart: version 1 values are JSON objects and start with '{'.
const valueV2 = 0x02

// valueV3 values are version 2 values followed by Record.Key and
// Record.Source (schema version 3).
const valueV3 = 0x03

// valueV4 values are valueV3 values whose Mode, Action and DecidedBy are
// words (schema version 5): nearly every record has one of a few texts
// there, and a byte for each saves 15 bytes of a record of 300.
const valueV4 = 0x04

// valueV5 values are valueV4 values followed by Record.Delivery (schema
// version 6). Only a record whose Delivery is set is written so: the
// others, nearly all, keep the byte it would take.
const valueV5 = 0x05

// valueV6 and valueV7 are valueV4 and valueV5 values with the record's
// seal (linkLen bytes, chain.go) after their first byte (schema version
// 7). encode writes them with a zero seal, which the caller sets.
const (
	valueV6 = 0x06
	valueV7 = 0x07
)

// hasDelivery reports whether a value of encoding e ends with
// Record.Delivery.
func hasDelivery(e byte) bool { return e == valueV5 || e == valueV7 }

// words are the texts a word of a valueV4 value names by a number: the
// text of number n is words[n-1]; number 0 (wordText) is followed by a text
// of any other value, as any field is. The numbers are part of the file
// format: a new word goes at the end, and none is ever removed or moved.
var words = [...][]byte{
	[]byte("form"), []byte("url"), // Mode
	[]byte("accept"), []byte("decline"), []byte("cancel"), []byte("error"), // Action
	[]byte("user"), []byte("timeout"), []byte("server-cancelled"), // DecidedBy, and "error"
}

// wordText is the number of a word that is not one of words: its text
// follows.
const wordText = 0

// How a binary value holds the requestedSchema.
const (
	schemaNone   = 0 // no schema
	schemaRef    = 1 // schemaRefLen bytes: the key of the schema in the schemas bucket
	schemaInline = 2 // length and bytes of the schema itself
)

// schemaRefLen is the length of a schema's key in the schemas bucket: the
// first bytes of its SHA-256.
const schemaRefLen = 8

// rawRecord is a binary value (0x02 to 0x07) taken apart without copying:
// its byte slices point into the value, so they are valid only as long as
// the value is (in bbolt, until the transaction ends). Queries match on it
// and turn only the records they keep into Records.
type rawRecord struct {
	zone                                  int // seconds east of UTC
	server, infoName, infoTitle           []byte
	infoVersion, tool, mode, message, url []byte
	action, decidedBy, reason             []byte
	elapsed                               int64
	schemaKind                            byte
	schema                                []byte // the reference or the inline schema
	content                               []byte // JSON object; nil for none
	key, source                           []byte // nil in version 2 values
	delivery                              []byte // nil before valueV5
	link                                  []byte // the seal; nil before valueV6
}

// errBadValue is wrapped by parse for a value it cannot take apart.
var errBadValue = errors.New("history file is damaged: unreadable record")

// parse takes a binary value (0x02 to 0x07) apart into rr.
func (rr *rawRecord) parse(v []byte) error {
	d, err := rr.head(v)
	if err != nil {
		return err
	}
	rr.url = d.bytes()
	if v[0] >= valueV4 {
		rr.action = d.word()
		rr.decidedBy = d.word()
	} else {
		rr.action = d.bytes()
		rr.decidedBy = d.bytes()
	}
	rr.reason = d.bytes()
	rr.elapsed = d.varint()
	rr.schemaKind = d.byte()
	switch rr.schemaKind {
	case schemaNone:
		rr.schema = nil
	case schemaRef:
		rr.schema = d.fixed(schemaRefLen)
	case schemaInline:
		rr.schema = d.bytes()
	default:
		d.bad = true
	}
	rr.content = d.bytes()
	rr.key, rr.source, rr.delivery = nil, nil, nil
	if v[0] != valueV2 {
		rr.key = d.bytes()
		rr.source = d.bytes()
	}
	if hasDelivery(v[0]) {
		rr.delivery = d.bytes()
	}
	if d.bad || len(d.b) != 0 {
		return errBadValue
	}
	return nil
}

// parseHead takes apart the fields of a binary value up to its
// message, which hold every field a search reads (searchFields), into rr:
// a search parses the rest of the records that match only.
func (rr *rawRecord) parseHead(v []byte) error {
	_, err := rr.head(v)
	return err
}

// head parses the fields of v up to the message and returns the decoder
// at the field after it.
func (rr *rawRecord) head(v []byte) (decoder, error) {
	if len(v) == 0 || v[0] < valueV2 || v[0] > valueV7 {
		return decoder{}, errBadValue
	}
	d := decoder{b: v[1:]}
	rr.link = nil
	if v[0] >= valueV6 {
		rr.link = d.fixed(linkLen)
	}
	rr.zone = int(d.varint())
	// One call per field rather than a loop over pointers to them: a search
	// parses every record, and this (with bytes' one-byte lengths) takes
	// half the time.
	rr.server = d.bytes()
	rr.infoName = d.bytes()
	rr.infoTitle = d.bytes()
	rr.infoVersion = d.bytes()
	rr.tool = d.bytes()
	if v[0] >= valueV4 {
		rr.mode = d.word()
	} else {
		rr.mode = d.bytes()
	}
	rr.message = d.bytes()
	if d.bad {
		return decoder{}, errBadValue
	}
	return d, nil
}

// decoder reads the parts of a binary value; a read past the end sets
// bad and returns zero values.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) varint() int64 {
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) fixed(n int) []byte {
	if len(d.b) < n {
		d.bad = true
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

// word reads a word (see words): its number, and the text that follows
// number wordText. A word's text is shared, and must not be changed.
func (d *decoder) word() []byte {
	n := d.byte()
	switch {
	case d.bad:
		return nil
	case n == wordText:
		return d.bytes()
	case int(n) <= len(words):
		return words[n-1]
	}
	d.bad = true
	return nil
}

func (d *decoder) bytes() []byte {
	var n uint64
	var w int
	// Most fields are shorter than 128 bytes, their length one byte.
	if len(d.b) > 0 && d.b[0] < 0x80 {
		n, w = uint64(d.b[0]), 1
	} else if n, w = binary.Uvarint(d.b); w <= 0 {
		d.bad = true
		return nil
	}
	if n > uint64(len(d.b)-w) {
		d.bad = true
		return nil
	}
	end := w + int(n)
	out := d.b[w:end:end]
	d.b = d.b[end:]
	if n == 0 {
		return nil
	}
	return out
}

// appendWord appends s to v as a word (see words).
func appendWord(v []byte, s string) []byte {
	for i, w := range words {
		if string(w) == s {
			return append(v, byte(i+1))
		}
	}
	v = append(v, wordText)
	v = binary.AppendUvarint(v, uint64(len(s)))
	return append(v, s...)
}

// encode returns the valueV6 value of r (valueV7 when r.Delivery is set),
// whose Time and ID are in its key, with a zero seal (see setSeal).
// schemas stores r.RequestedSchema once for every record that carries the
// same bytes (see putSchema); nil stores it inline, for tests. The schema is
// kept as sent: json.Marshal would compact it and escape HTML characters,
// and the history must show the schema the server sent.
func encode(r Record, schemas func(schema []byte) ([]byte, error)) ([]byte, error) {
	// Whitespace around the schema is not part of it; version 1 dropped it
	// too.
	schema := bytes.TrimSpace(r.RequestedSchema)
	var content []byte
	// An empty map is stored as none, as version 1's omitempty did.
	if len(r.Content) > 0 {
		var err error
		if content, err = json.Marshal(r.Content); err != nil {
			return nil, fmt.Errorf("encoding record content: %w", err)
		}
	}
	_, zone := r.Time.Zone()
	v := make([]byte, 0, 64+len(r.Message)+len(content))
	if r.Delivery != "" {
		v = append(v, valueV7)
	} else {
		v = append(v, valueV6)
	}
	v = append(v, make([]byte, linkLen)...)
	v = binary.AppendVarint(v, int64(zone))
	text := func(s string) {
		v = binary.AppendUvarint(v, uint64(len(s)))
		v = append(v, s...)
	}
	for _, s := range []string{r.Server, r.ServerInfo.Name, r.ServerInfo.Title, r.ServerInfo.Version, r.Tool} {
		text(s)
	}
	v = appendWord(v, r.Mode)
	text(r.Message)
	text(r.URL)
	v = appendWord(v, r.Action)
	v = appendWord(v, r.DecidedBy)
	text(r.Reason)
	v = binary.AppendVarint(v, int64(r.Elapsed))
	switch {
	case len(schema) == 0:
		v = append(v, schemaNone)
	default:
		var ref []byte
		if schemas != nil {
			var err error
			if ref, err = schemas(schema); err != nil {
				return nil, err
			}
		}
		if ref != nil {
			v = append(v, schemaRef)
			v = append(v, ref...)
		} else {
			if !json.Valid(schema) {
				return nil, errInvalidSchema
			}
			v = append(v, schemaInline)
			v = binary.AppendUvarint(v, uint64(len(schema)))
			v = append(v, schema...)
		}
	}
	v = binary.AppendUvarint(v, uint64(len(content)))
	v = append(v, content...)
	text(r.Key)
	text(r.Source)
	if r.Delivery != "" {
		text(r.Delivery)
	}
	return v, nil
}

// errInvalidSchema is returned by encode for a requestedSchema that is not
// JSON.
var errInvalidSchema = errors.New("encoding record: requestedSchema is not valid JSON")

// putSchema stores schema in the schemas bucket of tx, or counts one more
// reference to it when it is there already, and returns its key. A schema
// is checked to be JSON when it is stored first, and not again. It returns
// nil, for storing the schema inline, in the unlikely case that another
// schema holds the key: a key is only a prefix of a hash, and a server could
// craft such a schema on purpose.
func putSchema(tx *bolt.Tx, schema []byte) ([]byte, error) {
	ref := schemaFacts.ref(schema)
	schemas := tx.Bucket(bucketSchemas)
	switch old := schemas.Get(ref); {
	case old == nil:
		if !json.Valid(schema) {
			return nil, errInvalidSchema
		}
		if err := schemas.Put(ref, schema); err != nil {
			return nil, fmt.Errorf("storing requestedSchema: %w", err)
		}
	case !bytes.Equal(old, schema):
		return nil, nil
	}
	return ref, addCount(tx.Bucket(bucketSchemaRefs), ref, 1)
}

// schemaFacts keeps what is worked out from each requestedSchema met
// lately: its reference (its SHA-256) and the schema as json.Marshal
// writes it in a sealed line (sealedForm), where compacting it was three
// quarters of sealing a record. A history holds a few schemas, each in
// many records. Both are the schema's alone, and never go stale.
var schemaFacts = schemaCache{facts: map[string]*schemaFact{}}

type schemaCache struct {
	mu    sync.Mutex
	facts map[string]*schemaFact // by the schema's bytes
	size  int                    // bytes held
}

type schemaFact struct {
	ref  []byte // the first schemaRefLen bytes of its SHA-256
	form []byte // as json.Marshal writes it; nil until asked for
}

// Up to schemaCacheSize bytes of schemas and their forms are kept (and
// one form more); past that the cache starts again. A schema of more than
// a sixteenth of that is worked out each time rather than kept: one such
// schema among small ones would empty the cache at every record.
const schemaCacheSize = 1 << 20

func (c *schemaCache) fact(schema []byte) *schemaFact {
	if f, ok := c.facts[string(schema)]; ok {
		return f
	}
	sum := sha256.Sum256(schema)
	f := &schemaFact{ref: sum[:schemaRefLen:schemaRefLen]}
	if len(schema) <= schemaCacheSize/16 {
		c.hold(len(schema))
		c.facts[string(schema)] = f
	}
	return f
}

// hold counts n bytes more held, emptying the cache first when they would
// pass its size.
func (c *schemaCache) hold(n int) {
	if c.size+n > schemaCacheSize {
		clear(c.facts)
		c.size = 0
	}
	c.size += n
}

// ref returns the key schema is stored under in bucketSchemas. It is
// shared: do not change it.
func (c *schemaCache) ref(schema []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fact(schema).ref
}

// form returns schema as json.Marshal writes it within a value. It is
// shared: do not change it.
func (c *schemaCache) form(schema []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.fact(schema)
	if f.form == nil {
		form, err := json.Marshal(json.RawMessage(schema))
		if err != nil {
			return nil, err
		}
		if _, kept := c.facts[string(schema)]; kept {
			c.size += len(form) // the next schema kept empties a full cache
		}
		f.form = form
	}
	return f.form, nil
}

// releaseSchema counts one reference less to the schema with key ref, and
// deletes the schema when no record refers to it any more.
func releaseSchema(tx *bolt.Tx, ref []byte) error {
	refs := tx.Bucket(bucketSchemaRefs)
	if err := addCount(refs, ref, -1); err != nil {
		return err
	}
	if refs.Get(ref) == nil {
		return tx.Bucket(bucketSchemas).Delete(ref)
	}
	return nil
}

// addCount adds delta to the big-endian count under k in b, deleting the key
// when the count reaches zero.
func addCount(b *bolt.Bucket, k []byte, delta int64) error {
	var n uint64
	if old := b.Get(k); len(old) == 8 {
		n = binary.BigEndian.Uint64(old)
	}
	n += uint64(delta)
	if int64(n) <= 0 {
		return b.Delete(k)
	}
	return b.Put(k, binary.BigEndian.AppendUint64(nil, n))
}

// reader turns raw records of one transaction into Records, reading each
// schema from the schemas bucket once.
type reader struct {
	schemas *bolt.Bucket
	// cache holds the schemas read so far by reference, copied out of
	// bbolt's memory map: the Records of one reader share them.
	cache map[string][]byte
	// texts gathers one record's texts before they become one string.
	texts []byte
}

func newReader(tx *bolt.Tx) *reader {
	return &reader{schemas: tx.Bucket(bucketSchemas), cache: map[string][]byte{}}
}

// record returns the Record stored under key k as rr. The Record shares no
// memory with rr or with bbolt's memory map. Its texts are substrings of
// one string, made with one allocation rather than fourteen: a page of
// history is a few hundred records, and their small allocations were most
// of what listing one cost (and the collections they set off). Records of
// one reader share the bytes of a requestedSchema they both refer to
// (Record.RequestedSchema: read-only).
func (rd *reader) record(k []byte, rr *rawRecord) (Record, error) {
	fields := [...][]byte{rr.server, rr.infoName, rr.infoTitle, rr.infoVersion, rr.tool, rr.mode,
		rr.message, rr.url, rr.action, rr.decidedBy, rr.reason, rr.key, rr.source, rr.delivery}
	rd.texts = rd.texts[:0]
	for _, f := range fields {
		rd.texts = append(rd.texts, f...)
	}
	all := string(rd.texts)
	var t [len(fields)]string
	at := 0
	for i, f := range fields {
		t[i] = all[at : at+len(f)]
		at += len(f)
	}
	r := Record{
		ID:     keyID(k),
		Time:   recordTime(int64(keyNanos(k)), rr.zone),
		Server: t[0],
		ServerInfo: ServerInfo{
			Name:    t[1],
			Title:   t[2],
			Version: t[3],
		},
		Tool:      t[4],
		Mode:      t[5],
		Message:   t[6],
		URL:       t[7],
		Action:    t[8],
		DecidedBy: t[9],
		Reason:    t[10],
		Elapsed:   time.Duration(rr.elapsed),
		Key:       t[11],
		Source:    t[12],
		Delivery:  t[13],
	}
	switch rr.schemaKind {
	case schemaRef:
		schema, ok := rd.cache[string(rr.schema)]
		if !ok {
			stored := rd.schemas.Get(rr.schema)
			if stored == nil {
				return Record{}, fmt.Errorf("history file is damaged: record %d refers to a missing requestedSchema", r.ID)
			}
			// validSchema: a file written before Add made text valid
			// may hold a server's invalid UTF-8 (see validText).
			schema = validSchema(bytes.Clone(stored))
			rd.cache[string(rr.schema)] = schema
		}
		// Its length as its capacity: an append to one Record's schema
		// then copies, and writes nothing into another's.
		r.RequestedSchema = schema[:len(schema):len(schema)]
	case schemaInline:
		r.RequestedSchema = validSchema(bytes.Clone(rr.schema))
	}
	if rr.content != nil {
		// Into a variable of its own: &r.Content would move all of r to
		// the heap.
		var content map[string]any
		if err := decodeJSON(rr.content, &content); err != nil {
			return Record{}, fmt.Errorf("decoding content of record %d: %w", r.ID, err)
		}
		r.Content = content
	}
	return r, nil
}

// decodeJSON is json.Unmarshal with numbers read as json.Number: content is
// kept as the server received it, and a float64 would round
// 9007199254740993 to 9007199254740992 (doc.go, "Caveats").
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("more than one JSON value")
	}
	return nil
}

// recordTime returns the time of a record stored as Unix nanoseconds and a
// zone offset in the location version 1 gave it when it parsed the time
// back from RFC 3339: UTC for offset zero, the local zone when it has that
// offset at that time, and else a fixed zone without a name. Version 2 thus
// lists migrated and new records exactly as version 1 did.
func recordTime(nanos int64, zone int) time.Time {
	t := time.Unix(0, nanos)
	if zone == 0 {
		return t.UTC()
	}
	if _, off := t.Zone(); off == zone {
		return t
	}
	return t.In(time.FixedZone("", zone))
}

// decodeV1 returns the record in a version 1 value: a JSON object with
// RequestedSchema spliced in as sent, and numbers in content as written.
// Decoding copies, so the record shares no memory with v.
func decodeV1(v []byte) (Record, error) {
	var r Record
	if err := decodeJSON(v, &r); err != nil {
		return Record{}, fmt.Errorf("decoding version 1 record: %w", err)
	}
	r.RequestedSchema = validSchema(r.RequestedSchema)
	return r, nil
}

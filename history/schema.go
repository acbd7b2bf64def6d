package history

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// schemaVersion is the version of the file layout described in doc.go that
// this package reads and writes.
const schemaVersion = 8

// Bucket names, and keys of the meta bucket.
var (
	bucketMeta       = []byte("meta")
	bucketRecords    = []byte("records")
	bucketIDs        = []byte("ids")
	bucketServers    = []byte("servers")
	bucketSchemas    = []byte("schemas")
	bucketSchemaRefs = []byte("schemarefs")
	bucketRequests   = []byte("requests")
	bucketSearch     = []byte("search")

	// dataBuckets are the buckets that hold records and their indexes:
	// Clear empties them.
	dataBuckets = [][]byte{bucketRecords, bucketIDs, bucketServers, bucketSchemas, bucketSchemaRefs, bucketRequests, bucketSearch}

	keyVersion = []byte("version")
	// keyUpgrading marks a file whose records are being rewritten from
	// version 1 values; its value is the key of the last record rewritten,
	// or upgradeFromStart before the first.
	keyUpgrading     = []byte("upgrading-v1")
	upgradeFromStart = []byte("start")
)

// ErrNewerVersion is returned by Open for a file written by a newer elicitray
// whose layout this version does not know. The file is left untouched.
var ErrNewerVersion = errors.New("history file was written by a newer version of elicitray")

// upgradeBatch is how many version 1 records one transaction rewrites. A
// bbolt transaction keeps every page it changes in memory until it commits,
// so a large history is rewritten in steps. Tests lower it.
var upgradeBatch = 5000

// prepare brings the file of db to schemaVersion: it creates the buckets of
// a new file, upgrades an older one and refuses a newer one. It reports
// whether it rewrote records, which leaves free pages behind.
func prepare(db *bolt.DB) (upgraded bool, err error) {
	made, err := backup(db)
	if err != nil {
		return false, err
	}
	if err := db.Update(prepareTx); err != nil {
		// Nothing was changed: the copy made for this upgrade goes again,
		// or a disk it filled (the upgrade needs room too) stays full,
		// and every later Open made one more.
		if made != "" && os.Remove(made) == nil {
			syncDir(made)
			err = fmt.Errorf("%w (nothing was changed; the copy of the file made for the upgrade was removed again)", err)
		}
		return false, err
	}
	// Rewrite the records of a version 1 file in steps; prepareTx has set
	// the marker that an interrupted upgrade resumes from.
	for {
		var done bool
		err := db.Update(func(tx *bolt.Tx) error {
			var err error
			done, err = upgradeV1Step(tx)
			return err
		})
		if err != nil {
			return upgraded, fmt.Errorf("migrating from schema version 1: %w", err)
		}
		if done {
			break
		}
		upgraded = true
	}
	// Then seal the records of a file older than version 7, in steps too.
	now := time.Now()
	for {
		var done bool
		err := db.Update(func(tx *bolt.Tx) error {
			var err error
			done, err = sealStep(tx, now)
			return err
		})
		if err != nil {
			return upgraded, fmt.Errorf("sealing the history: %w", err)
		}
		if done {
			return upgraded, nil
		}
		upgraded = true
	}
}

// backup copies the file of db, when it is a history of an older schema
// version, to its path + ".v<version>.bak" (".v<version>.<n>.bak" when
// that name is taken) before Open changes its layout: the user keeps the
// file as their elicitray left it. It returns the name of the copy it
// made, "" when it made none: none was needed, or one made before (an
// upgrade that stopped before it changed anything, killed) holds the file
// byte for byte already.
func backup(db *bolt.DB) (made string, err error) {
	err = db.View(func(tx *bolt.Tx) error {
		version, err := readVersion(tx)
		if err != nil || version == 0 || version >= schemaVersion {
			return err
		}
		// A name taken (an older backup, or anything planted there) is
		// left alone: the copy gets the next free one. A file whose
		// upgrade began has the new version already and is not copied
		// again.
		name := fmt.Sprintf("%s.v%d.bak", db.Path(), version)
		for n := 1; ; n++ {
			if _, err := os.Lstat(name); errors.Is(err, os.ErrNotExist) {
				break
			}
			if sameFileBytes(name, db.Path()) {
				return nil
			}
			name = fmt.Sprintf("%s.v%d.%d.bak", db.Path(), version, n)
		}
		tmp := name + ".writing"
		f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			// Left by a backup cut short: it is ours to replace.
			if err = os.Remove(tmp); err == nil {
				f, err = os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_EXCL, 0o600)
			}
		}
		if err != nil {
			return fmt.Errorf("backing up the history before its upgrade: %w", err)
		}
		// The file byte for byte: this process holds its lock and has
		// written nothing yet.
		var src *os.File
		if src, err = os.Open(db.Path()); err == nil {
			_, err = io.Copy(f, src)
			src.Close()
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, name)
		}
		if err != nil {
			os.Remove(tmp)
			return fmt.Errorf("backing up the history before its upgrade: %w", err)
		}
		syncDir(name)
		made = name
		return nil
	})
	return made, err
}

// sameFileBytes reports whether the regular file at copy (not a link) holds
// what the file at path holds, byte for byte.
func sameFileBytes(copy, path string) bool {
	fi, err := os.Lstat(copy)
	pi, perr := os.Stat(path)
	if err != nil || perr != nil || !fi.Mode().IsRegular() || fi.Size() != pi.Size() {
		return false
	}
	a, err := os.Open(copy)
	if err != nil {
		return false
	}
	defer a.Close()
	if ai, err := a.Stat(); err != nil || !os.SameFile(ai, fi) {
		return false // not the file Lstat saw: a link put there since
	}
	b, err := os.Open(path)
	if err != nil {
		return false
	}
	defer b.Close()
	bufA, bufB := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, ea := io.ReadFull(a, bufA)
		nb, eb := io.ReadFull(b, bufB)
		if na != nb || !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF)
		}
	}
}

// prepareTx checks the version of the file in tx, creates the buckets of a
// new file and changes the layout of an older file to schemaVersion.
func prepareTx(tx *bolt.Tx) error {
	version, err := readVersion(tx)
	if err != nil {
		return err
	}
	if version > schemaVersion {
		return fmt.Errorf("file has schema version %d, this elicitray knows %d: %w",
			version, schemaVersion, ErrNewerVersion)
	}
	if version == 0 {
		// bbolt creates a new file empty; one with buckets but no version
		// is some other program's.
		if name, _ := tx.Cursor().First(); name != nil {
			return fmt.Errorf("%w: a bbolt file without a schema version, with bucket %q", errDamaged, name)
		}
	}
	if version < schemaVersion {
		if err := migrate(tx, version); err != nil {
			return fmt.Errorf("migrating from schema version %d: %w", version, err)
		}
		if err := writeVersion(tx, schemaVersion); err != nil {
			return err
		}
	}
	for _, name := range append(dataBuckets, bucketRemoved, bucketCheckpoints) {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("%w: bucket %q is missing", errDamaged, name)
		}
	}
	return nil
}

// errDamaged is wrapped by Open for a bbolt file that lacks what a history
// file has; Open reports it as ErrCorrupt.
var errDamaged = errors.New("history file is damaged")

// readVersion returns the schema version of the file in tx, 0 for a file
// without one (a new, empty file).
func readVersion(tx *bolt.Tx) (int, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return 0, nil
	}
	v := meta.Get(keyVersion)
	if v == nil {
		return 0, nil
	}
	version, err := strconv.Atoi(string(v))
	if err != nil || version < 1 {
		return 0, fmt.Errorf("%w: unreadable schema version %q", errDamaged, v)
	}
	return version, nil
}

// writeVersion stores version as the file's schema version.
func writeVersion(tx *bolt.Tx, version int) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	return meta.Put(keyVersion, []byte(strconv.Itoa(version)))
}

// migrate upgrades the layout of the file in tx from schema version from to
// schemaVersion; prepareTx then records the new version. Each version has
// one step below that runs when from is older than it, in order, so a file
// several versions behind passes through every step.
func migrate(tx *bolt.Tx, from int) error {
	if from < 1 {
		// A new file: version 1's buckets, which version 2 keeps.
		for _, name := range [][]byte{bucketRecords, bucketIDs, bucketServers} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("creating bucket %q: %w", name, err)
			}
		}
	}
	if from < 2 {
		// Version 2 stores each requestedSchema once and counts records
		// (doc.go). The buckets come now; a version 1 file's records are
		// rewritten afterwards, in steps (upgradeV1Step), from the start.
		for _, name := range [][]byte{bucketSchemas, bucketSchemaRefs} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("creating bucket %q: %w", name, err)
			}
		}
		if from == 1 {
			meta, err := tx.CreateBucketIfNotExists(bucketMeta)
			if err != nil {
				return err
			}
			if err := meta.Put(keyUpgrading, upgradeFromStart); err != nil {
				return err
			}
		}
	}
	if from < 3 {
		// Version 3 keeps one record per elicitation: the requests bucket
		// finds a record by Record.Key. Older records have no key.
		if _, err := tx.CreateBucketIfNotExists(bucketRequests); err != nil {
			return fmt.Errorf("creating bucket %q: %w", bucketRequests, err)
		}
	}
	if from < 4 {
		// Version 4 keeps a filter of the searched text per block of
		// records (doc.go, "Searching"), built now from every record; those
		// of an upgrade from version 1 keep their text when rewritten.
		if _, err := tx.CreateBucketIfNotExists(bucketSearch); err != nil {
			return fmt.Errorf("creating bucket %q: %w", bucketSearch, err)
		}
		if err := buildSearch(tx); err != nil {
			return fmt.Errorf("indexing the records for search: %w", err)
		}
	}
	// Version 5 writes smaller values (doc.go): records with Mode, Action
	// and DecidedBy as words, the time alone in the ids bucket, the ID in
	// the requests bucket. It reads those of older versions as they are, so
	// that nothing is rewritten; from version 5 on, an older elicitray,
	// which would take the new values for damage, refuses the file.
	// Version 6 adds Record.Delivery at the end of the values of records
	// that have it (0x05 values); the records of older versions are
	// delivered as they are, and nothing is rewritten either.
	if from < 7 {
		// Version 7 seals the records in a chain (doc.go, "The chain"):
		// every value is rewritten with its seal, after the version 1
		// upgrade if there is one, in steps (sealStep) from the start.
		for _, name := range [][]byte{bucketRemoved, bucketCheckpoints} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("creating bucket %q: %w", name, err)
			}
		}
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if from >= 1 {
			if err := meta.Put(keyUpgradingChain, make([]byte, 8+linkLen)); err != nil {
				return err
			}
		}
	}
	if from >= 4 && from < 8 {
		// Version 8 folds the searched text without the invisible
		// characters people do not type (searchText): the filters of the
		// search blocks are made again from every record, in this
		// transaction (about a second at a million records).
		if tx.Bucket(bucketRecords) == nil {
			return fmt.Errorf("%w: bucket %q is missing", errDamaged, bucketRecords)
		}
		if err := tx.DeleteBucket(bucketSearch); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
			return fmt.Errorf("dropping the search blocks: %w", err)
		}
		if _, err := tx.CreateBucket(bucketSearch); err != nil {
			return fmt.Errorf("creating bucket %q: %w", bucketSearch, err)
		}
		if err := buildSearch(tx); err != nil {
			return fmt.Errorf("indexing the records for search: %w", err)
		}
	}
	return nil
}

// sealStep seals up to upgradeBatch records of the file in tx for the
// first time, in ID order after the last the marker names, and writes a
// gap for every run of IDs whose records were removed before: their seals
// were never made, so a gap's two seals are the same. It reports done,
// and removes the marker, when none are left, after one checkpoint that
// says those records were removed before the history was sealed.
func sealStep(tx *bolt.Tx, now time.Time) (done bool, err error) {
	meta := tx.Bucket(bucketMeta)
	mark := meta.Get(keyUpgradingChain)
	if mark == nil {
		return true, nil
	}
	if len(mark) != 8+linkLen {
		return false, fmt.Errorf("%w: sealing marker %x", errDamaged, mark)
	}
	last := binary.BigEndian.Uint64(mark)
	prev := link(mark[8:])
	// bbolt cursors must not see the changes they walk over: collect the
	// batch, then write it.
	var keys [][]byte
	c := tx.Bucket(bucketIDs).Cursor()
	for k, v := c.Seek(idKey(last + 1)); k != nil && len(keys) < upgradeBatch; k, v = c.Next() {
		key, err := idEntryKey(k, v)
		if err != nil {
			return false, err
		}
		keys = append(keys, key)
	}
	removed := tx.Bucket(bucketRemoved)
	bridge := func(next uint64) error {
		if next == last+1 {
			return nil
		}
		return removed.Put(idKey(next), gap{first: last + 1, prev: prev, hash: prev}.encode())
	}
	records := tx.Bucket(bucketRecords)
	if len(keys) == 0 {
		if err := bridge(records.Sequence() + 1); err != nil {
			return false, err
		}
		if err := setHead(tx, prev); err != nil {
			return false, err
		}
		var runs [][2]uint64
		if err := removed.ForEach(func(k, v []byte) error {
			if g, ok := decodeGap(v); ok {
				runs = append(runs, [2]uint64{g.first, binary.BigEndian.Uint64(k) - 1})
			}
			return nil
		}); err != nil {
			return false, err
		}
		if len(runs) > 0 {
			if err := addCheckpoint(tx, runs, whyBefore, now); err != nil {
				return false, err
			}
		}
		return true, meta.Delete(keyUpgradingChain)
	}
	setFill(tx)
	// The records are read first and sealed on the sealer's goroutines,
	// then chained and written in ID order.
	rd := newReader(tx)
	var sl sealer
	defer sl.stop()
	type resealing struct {
		v       []byte // nil: a record elicitray cannot read
		sealing *sealing
	}
	batch := make([]resealing, len(keys))
	for i, k := range keys {
		v, r, err := resealable(tx, rd, k)
		if errors.Is(err, errBadValue) || errors.Is(err, errDamaged) {
			// It stays as it is, unsealed: the history around it opens,
			// and Verify names it.
			continue
		}
		if err != nil {
			return false, fmt.Errorf("record %d: %w", keyID(k), err)
		}
		batch[i] = resealing{v: v, sealing: sl.start(r)}
	}
	for i, k := range keys {
		id := keyID(k)
		if err := bridge(id); err != nil {
			return false, err
		}
		last = id
		if batch[i].v == nil {
			continue
		}
		l, err := batch[i].sealing.seal(prev)
		if err != nil {
			return false, err
		}
		copy(batch[i].v[1:], l[:])
		if err := records.Put(k, batch[i].v); err != nil {
			return false, err
		}
		prev = l
	}
	return false, meta.Put(keyUpgradingChain, append(binary.BigEndian.AppendUint64(nil, last), prev[:]...))
}

// resealable returns the value of the record under k in the encoding of
// this version, with room for its seal, keeping the reference to its
// schema as it is, and the record as Get will read it from that value.
func resealable(tx *bolt.Tx, rd *reader, k []byte) ([]byte, Record, error) {
	v := tx.Bucket(bucketRecords).Get(k)
	if v == nil {
		return nil, Record{}, fmt.Errorf("%w: indexed but missing", errDamaged)
	}
	var rr rawRecord
	if err := rr.parse(v); err != nil {
		return nil, Record{}, err
	}
	r, err := rd.record(k, &rr)
	if err != nil {
		return nil, Record{}, err
	}
	ref := bytes.Clone(rr.schema)
	nv, err := encode(r, func([]byte) ([]byte, error) {
		if rr.schemaKind == schemaRef {
			return ref, nil
		}
		return nil, nil
	})
	return nv, r, err
}

// upgradeV1Step rewrites up to upgradeBatch version 1 records of the file in
// tx as version 2 values, after the record the upgrade marker names, and
// counts them. It reports done, and removes the marker, when none are left.
func upgradeV1Step(tx *bolt.Tx) (done bool, err error) {
	meta := tx.Bucket(bucketMeta)
	from := meta.Get(keyUpgrading)
	if from == nil {
		return true, nil
	}
	records := tx.Bucket(bucketRecords)
	c := records.Cursor()
	var k, v []byte
	if bytes.Equal(from, upgradeFromStart) {
		k, v = c.First()
	} else if k, v = c.Seek(from); bytes.Equal(k, from) {
		k, v = c.Next()
	}
	// bbolt cursors must not see the changes they walk over: collect the
	// batch, then write it.
	type rewrite struct {
		key []byte
		r   Record
	}
	var batch []rewrite
	for ; k != nil && len(batch) < upgradeBatch; k, v = c.Next() {
		if len(k) != keyLen {
			return false, fmt.Errorf("%w: record key %x", errDamaged, k)
		}
		r, err := decodeV1(v)
		if err != nil {
			return false, fmt.Errorf("record key %x: %w", k, err)
		}
		batch = append(batch, rewrite{bytes.Clone(k), r})
	}
	if len(batch) == 0 {
		return true, meta.Delete(keyUpgrading)
	}
	setFill(tx)
	for _, b := range batch {
		v, err := encode(b.r, func(schema []byte) ([]byte, error) { return putSchema(tx, schema) })
		if err != nil {
			return false, fmt.Errorf("record %d: %w", b.r.ID, err)
		}
		if err := records.Put(b.key, v); err != nil {
			return false, err
		}
		if err := countRecord(tx, b.r.Server, 1); err != nil {
			return false, err
		}
	}
	return false, meta.Put(keyUpgrading, batch[len(batch)-1].key)
}

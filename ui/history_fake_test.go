package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/elicitray/elicitray/history"
)

// fakeHistory is a HistorySource over records with IDs 1 to top, newest
// (highest ID, latest time) first, filtering the way history.Query
// documents it. The records are either given (byID) or made from their ID
// (gen), so that a million of them cost no memory. It counts what the
// window asks for.
type fakeHistory struct {
	top     uint64                    // highest ID
	byID    map[uint64]history.Record // given records; nil: gen makes them
	gen     func(id uint64) history.Record
	deleted map[uint64]bool
	floor   uint64 // IDs at or below it were cleared
	err     error  // every call fails with it

	lists   []history.Query // every List call
	listed  int             // records List returned
	counts  []history.Query
	gets    []uint64
	deletes []uint64
	clears  int
	exports []string // format of every Export
}

// newFakeHistory is a fake over records, which must be newest first with
// decreasing IDs.
func newFakeHistory(records ...history.Record) *fakeHistory {
	f := &fakeHistory{byID: map[uint64]history.Record{}, deleted: map[uint64]bool{}}
	for _, r := range records {
		f.byID[r.ID] = r
		f.top = max(f.top, r.ID)
	}
	return f
}

// newBigHistory is a fake over n records made on the fly by synthRecord.
func newBigHistory(n uint64) *fakeHistory {
	return &fakeHistory{top: n, gen: synthRecord, deleted: map[uint64]bool{}}
}

// synthRecord is the made-up record id: a minute after id-1, over three
// servers and the three actions.
func synthRecord(id uint64) history.Record {
	actions := []string{"accept", "decline", "cancel"}
	return history.Record{
		ID:        id,
		Time:      t0.Add(time.Duration(id) * time.Minute),
		Server:    fmt.Sprintf("server-%d", id%3),
		Mode:      "form",
		Message:   fmt.Sprintf("Question number %d", id),
		Action:    actions[id%3],
		DecidedBy: "user",
		Elapsed:   time.Duration(id%60) * time.Second,
	}
}

// add makes a new newest record, as the hub does.
func (f *fakeHistory) add(r history.Record) history.Record {
	f.top++
	r.ID = f.top
	if f.byID == nil {
		f.byID = map[uint64]history.Record{}
	}
	f.byID[r.ID] = r
	return r
}

func (f *fakeHistory) at(id uint64) (history.Record, bool) {
	if id == 0 || id > f.top || id <= f.floor || f.deleted[id] {
		return history.Record{}, false
	}
	if r, ok := f.byID[id]; ok {
		return r, true
	}
	if f.gen != nil {
		return f.gen(id), true
	}
	return history.Record{}, false
}

func (f *fakeHistory) matches(q history.Query, r history.Record) bool {
	switch {
	case q.Server != "" && r.Server != q.Server,
		q.Action != "" && r.Action != q.Action,
		q.DecidedBy != "" && r.DecidedBy != q.DecidedBy,
		q.Mode != "" && r.Mode != q.Mode,
		!q.Since.IsZero() && r.Time.Before(q.Since),
		!q.Until.IsZero() && !r.Time.Before(q.Until):
		return false
	}
	text := strings.ToLower(r.Message + "\n" + r.Server + "\n" + r.Tool + "\n" + r.ServerInfo.Name)
	return strings.Contains(text, strings.ToLower(q.Text))
}

// walk calls each with the records q selects, newest first, until it
// returns false.
func (f *fakeHistory) walk(q history.Query, each func(history.Record) bool) error {
	from := f.top
	if q.Before != 0 {
		if _, ok := f.at(q.Before); !ok {
			return fmt.Errorf("paging before record %d: %w", q.Before, history.ErrNotFound)
		}
		from = q.Before - 1
	}
	if q.After != 0 {
		if _, ok := f.at(q.After); !ok {
			return fmt.Errorf("paging after record %d: %w", q.After, history.ErrNotFound)
		}
	}
	for id := from; id > f.floor && id > q.After; id-- {
		r, ok := f.at(id)
		if !ok || !f.matches(q, r) {
			continue
		}
		if !each(r) {
			break
		}
	}
	return nil
}

func (f *fakeHistory) List(q history.Query) ([]history.Record, error) {
	f.lists = append(f.lists, q)
	if f.err != nil {
		return nil, f.err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = history.DefaultLimit
	}
	var out []history.Record
	err := f.walk(q, func(r history.Record) bool {
		out = append(out, r)
		return len(out) < limit
	})
	f.listed += len(out)
	return out, err
}

func (f *fakeHistory) Get(id uint64) (history.Record, error) {
	f.gets = append(f.gets, id)
	if f.err != nil {
		return history.Record{}, f.err
	}
	if r, ok := f.at(id); ok {
		return r, nil
	}
	return history.Record{}, fmt.Errorf("reading history record %d: %w", id, history.ErrNotFound)
}

func (f *fakeHistory) CountQuery(q history.Query) (int, error) {
	f.counts = append(f.counts, q)
	if f.err != nil {
		return 0, f.err
	}
	q.Before, q.After, q.Limit = 0, 0, 0
	if q == (history.Query{}) && f.gen != nil {
		n := int(f.top - f.floor)
		for id := range f.deleted {
			if id > f.floor && id <= f.top {
				n--
			}
		}
		return n, nil
	}
	n := 0
	err := f.walk(q, func(history.Record) bool { n++; return true })
	return n, err
}

func (f *fakeHistory) Delete(id uint64) error {
	f.deletes = append(f.deletes, id)
	if f.err != nil {
		return f.err
	}
	if _, ok := f.at(id); !ok {
		return fmt.Errorf("deleting history record %d: %w", id, history.ErrNotFound)
	}
	f.deleted[id] = true
	return nil
}

func (f *fakeHistory) Clear() error {
	f.clears++
	if f.err != nil {
		return f.err
	}
	f.floor = f.top
	return nil
}

// Export writes one line per record: the format and the record as JSON.
func (f *fakeHistory) Export(w io.Writer, format string, q history.Query) (int, error) {
	f.exports = append(f.exports, format)
	if f.err != nil {
		return 0, f.err
	}
	n := 0
	var werr error
	err := f.walk(q, func(r history.Record) bool {
		b, _ := json.Marshal(r)
		if _, werr = fmt.Fprintf(w, "%s %s\n", format, b); werr != nil {
			return false
		}
		n++
		return true
	})
	return n, errors.Join(err, werr)
}

var _ HistorySource = (*fakeHistory)(nil)

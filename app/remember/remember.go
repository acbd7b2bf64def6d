// Package remember keeps the answers a person chose to have given again
// ("Always answer this way": rules that hold for a while) and the values
// last given to each question, which pre-fill the form when it is asked
// again (never a secret's). Both live in one 0600 file beside history,
// read afresh on every call, shared by the hub and `elicitray rules`.
//
// Files: remember.go.
package remember

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/elicitray/elicitray/app/paths"
	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/bridge/elicit"
)

// Remembered answers (issue 14, "Remember the answer"): a prompt window
// offers "Always answer this way"; the answer given with it becomes a rule
// for that server and that question, and later identical requests are
// answered from it without a window, recorded as decided by "rule" with the
// rule named in the reason. Separately, the text last typed into a
// question's free-text fields pre-fills them the next time it is asked
// (Config.Remember.Prefill).
//
// The same question is the same server, tool call, input request key (a
// 2026-07-28 round's), message and requestedSchema (questionOf): a form
// another tool asks with the same words is another question, and neither a
// rule nor a pre-filled value crosses over to it (issue 24).
//
// Pre-filling never decides for the user (issue 24, docs/remember.md):
// only free text for which the server set no default is pre-filled
// (elicit.Field.Prefillable); check boxes, choices and the server's
// defaults open as the server asks, every time; the window marks each
// pre-filled field as the user's last answer, offers one action that
// clears them all, and Return does not send them (ui/remember.go).
//
// What is never remembered:
//   - a form with a secret-looking field (hasSecret): neither
//     as a rule nor as pre-filled values, so no secret ever reaches this file
//     (DESIGN.md: secrets are never stored in clear);
//   - URL mode: a link is opened only after explicit consent, each time
//     (PROTOCOL.md §6);
//   - cancel: it is no choice, only a dismissal (PROTOCOL.md §5), and a rule
//     that cancels is what `rule = "cancel"` in config is for.
//
// MCP has no persistence hint of its own on a request (ElicitRequestParams
// carries mode, message, requestedSchema, url, elicitationId and _meta only,
// in every revision of PROTOCOL.md §1), so there is none to follow.
//
// Where: a file of its own, remembered.json beside history.db (0600, opened
// without following links, owner-checked), not a bucket in the history. The
// history is the hub's alone and may be locked or missing for a while (the
// journal spools then), while `elicitray rules list|forget` must work with
// or without a hub; the rules are few and small, and forgetting one must
// not wait for the history. Every change is a locked read-modify-write
// (remembered.lock) replaced in one rename, and the hub reads the file
// afresh for each prompt, so a rule forgotten from the command line is gone
// for the very next request.

// rememberedName and rememberedLock are the rules file and its lock, in
// the directory of history.db.
const (
	rememberedName = "remembered.json"
	rememberedLock = "remembered.lock"
)

// maxLastValues is how many questions' last values are kept for pre-filling;
// the oldest go first.
const maxLastValues = 200

// rememberedPath is the rules file of paths p.
func Path(p paths.Paths) string {
	return filepath.Join(filepath.Dir(p.History), rememberedName)
}

// RememberedRule is one remembered answer: what a server is sent, without a
// window, for one question of its.
type Rule struct {
	// ID names the rule in `elicitray rules forget ID` and in history.
	ID int `json:"id"`
	// Server is the configured name (--name) the rule is for.
	Server string `json:"server"`
	// Message is the server's message, as sent.
	Message string `json:"message"`
	// Schema is the SHA-256 (hex) of the canonical requestedSchema
	// (canonicalSchema).
	Schema string `json:"schema"`
	// Tool is the tool call the answer was given in; the rule holds for
	// that tool's question only ("" when the server asked outside a known
	// call).
	Tool string `json:"tool,omitempty"`
	// Input is the key of the question in a 2026-07-28 round's
	// inputRequests, "" for a request the server pushed.
	Input string `json:"input,omitempty"`
	// Action is accept or decline.
	Action string `json:"action"`
	// Content is what accept sends (no secret: such forms are never
	// remembered).
	Content map[string]any `json:"content,omitempty"`
	// Saved is when the user chose "Always answer this way".
	Saved time.Time `json:"saved"`
	// Expires is when the rule stops holding; zero: never.
	Expires time.Time `json:"expires,omitzero"`
}

// Describe is the rule in a few words, as history and `rules list` show
// it: `remembered rule 3 for github: accept {"name":"widgets"}`.
func (r Rule) Describe() string {
	return fmt.Sprintf("remembered rule %d for %s: %s", r.ID, r.Server, r.Answer())
}

// Answer is what the rule sends: `decline`, or `accept` and its content as
// JSON.
func (r Rule) Answer() string {
	s := r.Action
	if r.Action == bridge.ActionAccept && len(r.Content) > 0 {
		if b, err := json.Marshal(r.Content); err == nil {
			s += " " + string(b)
		}
	}
	return s
}

// LastValues are the values last given for one question.
type LastValues struct {
	Values map[string]any `json:"values"`
	Time   time.Time      `json:"time"`
}

// RememberedFile is the content of remembered.json.
type RememberedFile struct {
	NextID int    `json:"nextId"`
	Rules  []Rule `json:"rules"`
	// Last holds the values last given per question (questionKey).
	Last map[string]LastValues `json:"last,omitempty"`
}

// CanonicalSchema is the SHA-256 (hex) of requestedSchema with its object
// keys sorted and its whitespace gone: the same schema sent with another
// key order or spacing is the same question. Numbers keep their digits.
func CanonicalSchema(schema json.RawMessage) string {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	canon := []byte(schema)
	if err := dec.Decode(&doc); err == nil {
		// encoding/json writes map keys sorted.
		if b, err := json.Marshal(doc); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// Question is what makes two elicitations the same question: the server
// that asks, the tool call in flight, the key of the round's input request,
// the message and the requestedSchema's hash (canonicalSchema).
type Question struct {
	Server, Tool, Input, Message, Schema string
}

// QuestionOf is the question req asks.
func QuestionOf(req *bridge.Request) Question {
	return Question{Server: req.Server, Tool: req.Tool, Input: req.InputKey, Message: req.Message,
		Schema: CanonicalSchema(req.RequestedSchema)}
}

// Key is the question as the map key of rememberedFile.Last.
func (q Question) Key() string {
	// JSON, so no choice of separator can make two questions one.
	b, _ := json.Marshal([]string{q.Server, q.Tool, q.Input, q.Message, q.Schema})
	return string(b)
}

// question is the question the rule answers.
func (r Rule) question() Question {
	return Question{Server: r.Server, Tool: r.Tool, Input: r.Input, Message: r.Message, Schema: r.Schema}
}

// Rememberable says why the answer to req, asking form (nil: a link to
// open, not a form), cannot be remembered, "" when it can.
func Rememberable(req *bridge.Request, form *elicit.Form) string {
	switch {
	case form == nil:
		return "a link is opened only after your consent, each time"
	case hasSecret(req, form):
		return "the form asks for a secret, which elicitray never stores"
	case req != nil && req.ToolUnknown:
		return "several tool calls were running, so which one asks is not known"
	}
	return ""
}

// SecretValue reports whether a value typed into a field that does not
// look secret still holds one: a link with a password in it
// (postgres://admin:…@db), which is never kept to pre-fill a form.
func SecretValue(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.User == nil {
		return false
	}
	_, has := u.User.Password()
	return has
}

// hasSecret reports whether form has a field history would redact
// (bridge.SecretProperties: elicit's Sensitive ones, and a choice among
// PINs), so that nothing history keeps from view is remembered here.
func hasSecret(req *bridge.Request, form *elicit.Form) bool {
	var schema []byte
	if req != nil {
		schema = req.RequestedSchema
	}
	return len(bridge.SecretProperties(schema, form)) > 0
}

// Memory is the remembered answers at path, shared by the hub and the
// rules command. Each call reads the file afresh.
type Memory struct {
	Path string
	once sync.Once
	file paths.JSONFile
}

// ErrRuleNotFound is Forget's error for an ID no rule has.
var ErrNotFound = errors.New("no remembered rule has that number")

// json is the file at m.Path.
func (m *Memory) json() *paths.JSONFile {
	m.once.Do(func() { m.file.Path, m.file.Lock, m.file.What = m.Path, rememberedLock, "remembered answers" })
	return &m.file
}

// Load reads the file; a missing file is an empty one.
func (m *Memory) Load() (RememberedFile, error) {
	var rf RememberedFile
	if err := m.json().Read(&rf); err != nil {
		return RememberedFile{}, err
	}
	return rf, nil
}

// change applies edit to the file under the lock and writes it back in one
// rename, unless edit returns an error.
func (m *Memory) change(edit func(*RememberedFile) error) error {
	var rf RememberedFile
	return m.json().Edit(&rf, func() error { return edit(&rf) })
}

// Rules returns the rules in force at now, oldest first.
func (m *Memory) Rules(now time.Time) ([]Rule, error) {
	rf, err := m.Load()
	if err != nil {
		return nil, err
	}
	var out []Rule
	for _, r := range rf.Rules {
		if r.Expires.IsZero() || r.Expires.After(now) {
			out = append(out, r)
		}
	}
	return out, nil
}

// Match returns the rule in force at now for the question, if any.
func (m *Memory) Match(q Question, now time.Time) (Rule, bool, error) {
	rules, err := m.Rules(now)
	if err != nil {
		return Rule{}, false, err
	}
	for i := len(rules) - 1; i >= 0; i-- { // the newest wins
		if rules[i].question() == q {
			return rules[i], true, nil
		}
	}
	return Rule{}, false, nil
}

// Add keeps r (its ID given here) in place of any rule for the same
// question, drops expired rules, and returns it.
func (m *Memory) Add(r Rule, now time.Time) (Rule, error) {
	err := m.change(func(rf *RememberedFile) error {
		kept := rf.Rules[:0]
		for _, old := range rf.Rules {
			same := old.question() == r.question()
			expired := !old.Expires.IsZero() && !old.Expires.After(now)
			if !same && !expired {
				kept = append(kept, old)
			}
		}
		rf.NextID = max(rf.NextID, 1)
		for _, old := range rf.Rules {
			rf.NextID = max(rf.NextID, old.ID+1)
		}
		r.ID = rf.NextID
		rf.NextID++
		rf.Rules = append(kept, r)
		return nil
	})
	return r, err
}

// Forget removes the rule numbered id (all of them when all is set) and
// returns what it removed.
func (m *Memory) Forget(id int, all bool) ([]Rule, error) {
	var gone []Rule
	err := m.change(func(rf *RememberedFile) error {
		kept := rf.Rules[:0:0]
		for _, r := range rf.Rules {
			if all || r.ID == id {
				gone = append(gone, r)
				continue
			}
			kept = append(kept, r)
		}
		if len(gone) == 0 && !all {
			return fmt.Errorf("forgetting rule %d: %w (`elicitray rules list` shows them)", id, ErrNotFound)
		}
		rf.Rules = kept
		return nil
	})
	return gone, err
}

// Last returns the values last given for the question, nil when none.
func (m *Memory) Last(key string) map[string]any {
	rf, err := m.Load()
	if err != nil {
		return nil
	}
	return rf.Last[key].Values
}

// KeepLast keeps values as the last given for the question, dropping the
// oldest beyond maxLastValues; no values forgets the question's.
func (m *Memory) KeepLast(key string, values map[string]any, now time.Time) error {
	return m.change(func(rf *RememberedFile) error {
		if len(values) == 0 {
			delete(rf.Last, key)
			return nil
		}
		if rf.Last == nil {
			rf.Last = map[string]LastValues{}
		}
		rf.Last[key] = LastValues{Values: values, Time: now}
		if len(rf.Last) > maxLastValues {
			keys := make([]string, 0, len(rf.Last))
			for k := range rf.Last {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool { return rf.Last[keys[i]].Time.Before(rf.Last[keys[j]].Time) })
			for _, k := range keys[:len(keys)-maxLastValues] {
				delete(rf.Last, k)
			}
		}
		return nil
	})
}

// PrefillValues are the values (as remembered) of the fields of form that
// may be pre-filled (elicit.Field.Prefillable: free text with no server
// default, never a secret) and whose value still fits and is no text the
// question shows (elicit.Field.Echoes, with message, the request's: a typed
// confirmation); the rest are dropped, whatever an older remembered.json
// holds for them.
func PrefillValues(form *elicit.Form, message string, values map[string]any) map[string]any {
	if form == nil || len(values) == 0 {
		return nil
	}
	out := map[string]any{}
	for i := range form.Fields {
		f := &form.Fields[i]
		// A value kept that the rule refuses now, or that no longer fits
		// the question's constraints, is not pre-filled.
		if s, isText := values[f.Name].(string); isText && Prefills(f, s, message) && f.Check(s) == nil {
			out[f.Name] = s
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Prefills reports whether v, typed into f of a question asking message,
// is kept to pre-fill f the next time the question is asked: free text
// that may be pre-filled (elicit.Field.Prefillable), no secret, and no
// typed confirmation (elicit.Field.Echoes). The one rule for what is kept
// and what is pre-filled.
func Prefills(f *elicit.Field, v, message string) bool {
	return v != "" && f.Prefillable() && !SecretValue(v) && !f.Echoes(v, message)
}

// RememberDesc is the rule's end of a history reason: who made it and
// until when.
func RememberDesc(r Rule) string {
	var b strings.Builder
	b.WriteString(r.Describe())
	fmt.Fprintf(&b, " (you chose \"Always answer this way\" on %s", r.Saved.Local().Format("2 Jan 2006 15:04"))
	if !r.Expires.IsZero() {
		fmt.Fprintf(&b, "; it holds until %s", r.Expires.Local().Format("2 Jan 2006 15:04"))
	}
	b.WriteString("; `elicitray rules forget " + fmt.Sprint(r.ID) + "` undoes it)")
	return b.String()
}

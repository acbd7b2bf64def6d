package history

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// Record is one decision on one elicitation.
type Record struct {
	// ID identifies the record for `elicitray history show ID`; assigned by
	// Store.Add (a small decimal number, increasing with each record).
	ID uint64 `json:"id"`
	// Time is when the elicitation arrived at the hub.
	Time time.Time `json:"time"`
	// Server is the name the user configured for the server (--name).
	Server string `json:"server"`
	// ServerInfo is what the server calls itself: name, title, version.
	ServerInfo ServerInfo `json:"serverInfo"`
	// Tool is the tools/call in flight when the server asked; "" if unknown.
	Tool string `json:"tool,omitempty"`
	// Mode is "form" or "url".
	Mode string `json:"mode"`
	// Message is the server's message as sent.
	Message string `json:"message"`
	// RequestedSchema is the form schema as sent (form mode). Records
	// that one call of Store returns may share its bytes: read them, do
	// not change them.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the URL of a URL-mode elicitation.
	URL string `json:"url,omitempty"`
	// Action is "accept", "decline" or "cancel"; "error" when the request
	// was answered with a JSON-RPC error (e.g. an unrenderable schema).
	Action string `json:"action"`
	// Content is the content sent with accept, nil otherwise.
	Content map[string]any `json:"content,omitempty"`
	// DecidedBy is "user" (a person, in the window) or what decided in
	// their stead: "timeout", "rule", "paused", "server-cancelled", "error"…
	DecidedBy string `json:"decidedBy"`
	// Reason explains a decision no person made (the error text, "hub gone").
	Reason string `json:"reason,omitempty"`
	// Elapsed is the time from arrival to decision (time to answer).
	Elapsed time.Duration `json:"elapsedNs"`
	// Key identifies the elicitation the record is of, across the wrapper,
	// the hub and the spool; "" for records of older versions. Add keeps
	// one record per Key: a record whose Key is stored already replaces it
	// only as SourceWrapper describes, and is otherwise a replay that
	// changes nothing.
	Key string `json:"key,omitempty"`
	// Source says who wrote the record: "" (SourceHub) for the hub's own
	// decision, SourceWrapper for what the wrapper sent the server when the
	// hub's decision did not reach it unchanged.
	Source string `json:"source,omitempty"`
	// Delivery says whether the server got Action: "" when it did (the
	// answer was written to it, or accepted by it over HTTP; and every
	// record kept before elicitray told this apart), DeliveryPending while
	// the answer is on its way through the wrapper, and otherwise the
	// sentence saying why it never reached the server ("the wrapper ended
	// before …").
	Delivery string `json:"delivery,omitempty"`
	// Unreadable, when not empty, says why the record's stored bytes
	// could not be read: the history file is damaged there. Only ID and
	// Time are known then, and Server when the listing was of one server.
	// List, ListPage and CountQuery include such a record whatever else
	// the Query selects, so that the damage shows where it is and hides
	// no other record; Get fails for it, and Export leaves it out and
	// says so (ErrUnreadable). Delete removes it.
	Unreadable string `json:"unreadable,omitempty"`
}

// DeliveryPending is the Record.Delivery of a decision sent to the wrapper
// whose writing to the server is not confirmed yet. A record that stays so
// says what is known: the server may not have got it.
const DeliveryPending = "pending"

// Delivered reports whether the server got the record's answer
// (Record.Delivery is empty).
func (r Record) Delivered() bool { return r.Delivery == "" }

// AnsweredIn is how long the person took to decide, and false for a
// decision no person made (a rule, a timeout, the pause): Elapsed is then
// no time to answer, and is not shown as one.
func (r Record) AnsweredIn() (time.Duration, bool) {
	return r.Elapsed, r.DecidedBy == "user"
}

// Sources of a record (Record.Source).
const (
	// SourceHub is the hub's decision, kept before the hub sent it.
	SourceHub = ""
	// SourceWrapper is what the wrapper sent the server when that was not
	// the hub's decision: the hub was gone, no desktop could show the
	// prompt, the request was refused, or the answer did not fit the
	// schema. It is the last word on what the server received, so it
	// replaces a hub record of the same Key.
	SourceWrapper = "wrapper"
	// SourceDelivery is no decision but the word on whether one reached
	// the server: its Key and Delivery settle the Delivery of the stored
	// record of that Key while it is DeliveryPending. Without such a
	// record it adds nothing.
	SourceDelivery = "delivery"
)

// ServerInfo is what a server calls itself in its initialize reply.
type ServerInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version,omitempty"`
}

// validText returns r with every invalid UTF-8 sequence in its text
// replaced by U+FFFD: its strings and its RequestedSchema. A server's text
// reaches history as sent, and JSON encoders replace invalid bytes in
// strings but copy a json.RawMessage as it is, so a schema with such bytes
// would make every JSON line of List's callers and Export invalid (issue
// 10). Valid text is returned unchanged, without copying.
func validText(r Record) Record {
	for _, s := range []*string{&r.Server, &r.ServerInfo.Name, &r.ServerInfo.Title, &r.ServerInfo.Version,
		&r.Tool, &r.Mode, &r.Message, &r.URL, &r.Action, &r.DecidedBy, &r.Reason} {
		if !utf8.ValidString(*s) {
			*s = strings.ToValidUTF8(*s, "\uFFFD")
		}
	}
	r.RequestedSchema = validSchema(r.RequestedSchema)
	return r
}

// validSchema is schema with invalid UTF-8 replaced by U+FFFD; valid JSON
// holds such bytes only inside strings, so it stays the same JSON.
func validSchema(schema json.RawMessage) json.RawMessage {
	if utf8.Valid(schema) {
		return schema
	}
	return bytes.ToValidUTF8(schema, []byte("\uFFFD"))
}

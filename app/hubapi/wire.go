package hubapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// wireMsg is one line of the hub protocol, spoken over the owner-only unix
// socket between wrappers (and the history CLI) and the hub. One JSON object
// per line, in both directions:
//
//	→ {"op":"prompt","id":1,"request":{…bridge.Request…}}
//	← {"id":1,"result":{"action":"accept","content":{…},"decidedBy":"user"}}
//	→ {"op":"cancel","id":1,"result":{…}}     ended before anyone answered
//	                                          (result says who and why); no reply
//	→ {"op":"delivered","key":"elicitray-…-3"}  the answer to the request
//	→ {"op":"delivered","key":"…","error":"…"}  reached its server, or why
//	                                          not (no reply); only for a
//	                                          request that said
//	                                          reportsDelivery: true
//	→ {"op":"record","id":4,"record":{…}}     keep what the wrapper sent a server
//	← {"id":4}                                on disk: history or the spool
//	← {"id":4,"error":"not saved: …"}         only in the hub's memory
//	→ {"op":"tool-accepted","id":5,"records":[…]}  the user accepted tools'
//	                                          changes elsewhere: the hub
//	                                          keeps each and answers their
//	                                          windows; replies as to record
//	→ {"op":"history","id":2,"query":{…}}     ← {"id":2,"records":[…]}
//	→ {"op":"get","id":3,"recordId":42}       ← {"id":3,"records":[…]}
//	→ {"op":"quit","id":4} / {"op":"show-history","id":5}   ← {"id":4}
//	→ {"op":"export","id":6,"format":"csv","query":{…}}
//	← {"id":6,"data":"…"} …                   the export, in chunks
//	← {"id":6,"done":true,"count":1234}       the end, and how many records
//	→ {"op":"prune","id":7,"prune":{…}}       ← {"id":7,"count":12}
//	→ {"op":"pause","id":8,"paused":true}     ← {"id":8}   (false: resume)
//	→ {"op":"mute","id":9,"server":"github","for":3600000000000}
//	                                          ← {"id":9,"until":"…"}
//	                                          (with "force":true even a
//	                                          server the hub does not know)
//	→ {"op":"unmute","id":10,"server":"github"}   ← {"id":10,"until":"…"}
//	                                          until: the mute lifted, if any
//	← {"id":9,"error":"no server named …","unknown":true}
//	                                          mute, unmute: not a server
//	                                          the hub knows (a typo?)
//	→ {"op":"status","id":11}  ← {"id":11,"paused":false,"count":2,"servers":[…],"version":"…","display":":0",
//	                              "spooled":0,"unsaved":3,"problem":"3 decisions not saved: …"}
//	→ {"op":"settings","id":12}               ← {"id":12}
//	← {"id":N,"error":"a sentence"}
type Message struct {
	Op       string           `json:"op,omitempty"`
	ID       uint64           `json:"id,omitempty"`
	Request  *bridge.Request  `json:"request,omitempty"`
	Result   *bridge.Result   `json:"result,omitempty"`
	Record   *history.Record  `json:"record,omitempty"`
	Query    *history.Query   `json:"query,omitempty"`
	RecordID uint64           `json:"recordId,omitempty"`
	Records  []history.Record `json:"records,omitempty"`
	Error    string           `json:"error,omitempty"`
	// Kind says which of history's errors Error is (history.ErrorKind):
	// an export that left out records it could not read, say.
	Kind string `json:"kind,omitempty"`
	// Key is the request whose delivery "delivered" tells (bridge.Request.ID).
	Key string `json:"key,omitempty"`

	Format string                `json:"format,omitempty"` // export: history.FormatJSONL or FormatCSV
	Data   []byte                `json:"data,omitempty"`   // export: a chunk of the output (base64 in JSON)
	Done   bool                  `json:"done,omitempty"`   // export: the last message
	Count  int                   `json:"count,omitempty"`  // export, prune: how many records
	Prune  *history.PruneOptions `json:"prune,omitempty"`
	// verify: what the check of the history's chain found.
	Verification *history.Verification `json:"verification,omitempty"`

	Paused  bool          `json:"paused,omitempty"`  // pause; status
	Server  string        `json:"server,omitempty"`  // mute, unmute
	For     time.Duration `json:"for,omitempty"`     // mute: how long (ns)
	Until   time.Time     `json:"until,omitzero"`    // mute: muted until
	Force   bool          `json:"force,omitempty"`   // mute: even a server the hub does not know
	Unknown bool          `json:"unknown,omitempty"` // mute, unmute: the server is not one the hub knows
	Servers []ServerState `json:"servers,omitempty"` // status
	Version string        `json:"version,omitempty"` // status: the hub's elicitray version
	Display string        `json:"display,omitempty"` // status: the X display the hub's windows open on (Hub.Display)
	// status: decisions not in history yet (journal.go), and the sentence
	// saying so, "" when every decision is in history.
	Spooled int    `json:"spooled,omitempty"`
	Unsaved int    `json:"unsaved,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// SetError makes m the reply that fails with err, telling history's
// errors by their kind (history.ErrorKind).
func (m *Message) SetError(err error) {
	m.Error, m.Kind = err.Error(), history.ErrorKind(err)
}

// decodeWire reads one line of the hub protocol into m. Numbers in content
// stay json.Number: decoded into float64 they lose digits beyond about 16,
// and the wrapper would send the server another number than the window
// showed (issue 10; PROTOCOL.md §5: numbers stay JSON numbers).
func Decode(line []byte, m *Message) error { return DecodeLine(line, m) }

// DecodeLine decodes the one JSON value of a protocol line into v, numbers
// as json.Number (decodeWire says why); anything after it is an error.
func DecodeLine(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

// Hub protocol operations.
const (
	OpPrompt   = "prompt"
	OpCancel   = "cancel"
	OpRecord   = "record"
	OpHistory  = "history"
	OpGet      = "get"
	OpQuit     = "quit"         // stop the hub (`elicitray quit`)
	OpWindow   = "show-history" // open the history window
	OpExport   = "export"       // stream an export of the history
	OpPrune    = "prune"        // apply retention now
	OpVerify   = "verify"       // check the history's chain
	OpPause    = "pause"        // pause (paused true) or resume all prompts
	OpMute     = "mute"         // mute a server for a while
	OpUnmute   = "unmute"       // lift a mute
	OpStatus   = "status"       // paused, muted servers, prompts waiting
	OpSettings = "settings"     // open the Settings window
	OpMenu     = "menu"         // open the menu window (menuwin.go)
	// OpToolAccepted: the user accepted a tool's changed definition
	// outside the window that tells of it (`elicitray tools accept`).
	OpToolAccepted = "tool-accepted"
)

// OpDelivered tells the hub whether the answer to a request reached its
// server (bridge.Options.Delivered); a request says it will with
// reportsDelivery, so that a hub hears it only from wrappers that send it.
const OpDelivered = "delivered"

// ServerState is a server the hub knows, for the tray's mute menu and
// `elicitray status`.
type ServerState struct {
	Name       string
	MutedUntil time.Time // zero when not muted
	// Rule is the rule in force for the server's prompts (RuleAsk,
	// RuleDecline, RuleCancel, RuleAcceptDefaults,
	// RuleAcceptDefaultsOrCancel): its own, else ask.
	Rule string `json:",omitempty"`
	// Guard and GuardDestructive are the server's tool-call guard as
	// config.toml sets them ([servers.NAME] guard, guard_destructive):
	// the tool-name patterns whose calls ask first, and whether every
	// tool the server calls destructive does too. Empty and false: no
	// guard.
	Guard            []string `json:",omitempty"`
	GuardDestructive bool     `json:",omitempty"`
	// KeepAlive is how often the wrapper tells the host a prompt is still
	// open (Config.KeepAliveFor): zero, never. Nil from a hub older than
	// this field, which did not say.
	KeepAlive *time.Duration `json:",omitempty"`
	// Timeout is how long its prompts wait for a person, and Burst and
	// Every its rate limit: Burst prompts at once, then one per Every
	// (config.Policy: its own, else the defaults). Zero from a hub older
	// than these fields, which did not say.
	Timeout time.Duration `json:",omitempty"`
	Burst   int           `json:",omitempty"`
	Every   time.Duration `json:",omitempty"`
}

package hubapi

import (
	"time"

	"github.com/elicitray/elicitray/bridge"
	"github.com/elicitray/elicitray/history"
)

// One request and one reply type per operation. Each request turns into
// the Message that carries it (its message method) and each reply is read
// from the Message that answers (the …Of functions; the hub writes it with
// the reply's Reply method), so that the JSON on
// the wire is Message's whatever the Go types: a wrapper of this version
// and a hub of the last one understand each other (ops_test.go holds the
// shapes wire.go documents).

// PromptRequest asks the hub to decide an elicitation (OpPrompt).
type PromptRequest struct{ Request *bridge.Request }

func (r PromptRequest) Message() Message { return Message{Op: OpPrompt, Request: r.Request} }

// PromptReply is the hub's decision, and the record of it when the hub
// could not save it (a full disk): the wrapper keeps that copy.
type PromptReply struct {
	Result *bridge.Result
	Record *history.Record
}

func promptReplyOf(m Message) PromptReply { return PromptReply{Result: m.Result, Record: m.Record} }

// Reply is r answering call id.
func (r PromptReply) Reply(id uint64) Message {
	return Message{ID: id, Result: r.Result, Record: r.Record}
}

// CancelRequest ends prompt ID before anyone answered, saying who and why
// (OpCancel); the hub does not reply.
type CancelRequest struct {
	ID     uint64
	Result *bridge.Result
}

func (r CancelRequest) Message() Message { return Message{Op: OpCancel, ID: r.ID, Result: r.Result} }

// DeliveredRequest says whether the answer to request Key reached its
// server: Error is why not, "" when it did (OpDelivered); no reply.
type DeliveredRequest struct {
	Key   string
	Error string
}

func (r DeliveredRequest) Message() Message {
	return Message{Op: OpDelivered, Key: r.Key, Error: r.Error}
}

// RecordRequest asks the hub to keep what a wrapper sent a server
// (OpRecord). The reply is empty: an error means the record is only in the
// hub's memory.
type RecordRequest struct{ Record *history.Record }

func (r RecordRequest) Message() Message { return Message{Op: OpRecord, Record: r.Record} }

// ToolAcceptedRequest says the user accepted tools' changed definitions
// outside the windows telling of the changes (OpToolAccepted): Records,
// one acceptance per tool (journal.ToolAccepted), in one request, so that
// a hub that takes it late still closes every such window. The hub keeps
// each and answers those windows with it. The reply is as OpRecord's.
type ToolAcceptedRequest struct{ Records []history.Record }

func (r ToolAcceptedRequest) Message() Message {
	return Message{Op: OpToolAccepted, Records: r.Records}
}

// HistoryRequest lists history (OpHistory); a nil Query is every record.
type HistoryRequest struct{ Query *history.Query }

func (r HistoryRequest) Message() Message { return Message{Op: OpHistory, Query: r.Query} }

// HistoryReply is the records asked for, and what keeps decisions out of
// history ("" when nothing does). It answers OpHistory and OpGet.
type HistoryReply struct {
	Records []history.Record
	Problem string
}

func historyReplyOf(m Message) HistoryReply {
	return HistoryReply{Records: m.Records, Problem: m.Problem}
}

// Reply is r answering call id.
func (r HistoryReply) Reply(id uint64) Message {
	return Message{ID: id, Records: r.Records, Problem: r.Problem}
}

// GetRequest asks for record RecordID (OpGet).
type GetRequest struct{ RecordID uint64 }

func (r GetRequest) Message() Message { return Message{Op: OpGet, RecordID: r.RecordID} }

// ExportRequest streams history as Format (history.FormatJSONL or
// FormatCSV) in chunks (OpExport); the last message says how many records.
type ExportRequest struct {
	Format string
	Query  *history.Query
}

func (r ExportRequest) Message() Message {
	return Message{Op: OpExport, Format: r.Format, Query: r.Query}
}

// PruneRequest applies retention now (OpPrune); nil Prune is the config's.
type PruneRequest struct{ Prune *history.PruneOptions }

func (r PruneRequest) Message() Message { return Message{Op: OpPrune, Prune: r.Prune} }

// VerifyRequest checks the chain of the history (OpVerify).
type VerifyRequest struct{}

func (r VerifyRequest) Message() Message { return Message{Op: OpVerify} }

// CountReply is how many records an export wrote or a prune removed.
type CountReply struct{ Count int }

// Reply is r answering call id.
func (r CountReply) Reply(id uint64) Message { return Message{ID: id, Count: r.Count} }

// PauseRequest pauses every prompt (Paused) or resumes them (OpPause).
type PauseRequest struct{ Paused bool }

func (r PauseRequest) Message() Message { return Message{Op: OpPause, Paused: r.Paused} }

// MuteRequest mutes Server for For (OpMute); Force even a server the hub
// does not know.
type MuteRequest struct {
	Server string
	For    time.Duration
	Force  bool
}

func (r MuteRequest) Message() Message {
	return Message{Op: OpMute, Server: r.Server, For: r.For, Force: r.Force}
}

// UnmuteRequest lifts Server's mute (OpUnmute).
type UnmuteRequest struct{ Server string }

func (r UnmuteRequest) Message() Message { return Message{Op: OpUnmute, Server: r.Server} }

// MuteReply is when the mute ends (mute) or would have ended (unmute;
// zero when the server was not muted).
type MuteReply struct{ Until time.Time }

// Reply is r answering call id.
func (r MuteReply) Reply(id uint64) Message { return Message{ID: id, Until: r.Until} }

// UnknownServerReply answers call id, a mute or unmute of a server the hub
// does not know, with sentence.
func UnknownServerReply(id uint64, sentence string) Message {
	return Message{ID: id, Error: sentence, Unknown: true}
}

// StatusReply is the hub's state (OpStatus): whether prompts are paused,
// how many wait, the servers it knows, its version and display, and the
// decisions not in history yet (SavedState).
type StatusReply struct {
	Paused  bool
	Waiting int
	Servers []ServerState
	Version string
	Display string
	SavedState
}

// Reply is r answering call id.
func (r StatusReply) Reply(id uint64) Message {
	m := r.SavedState.Reply(id)
	m.Paused, m.Count, m.Servers, m.Version, m.Display = r.Paused, r.Waiting, r.Servers, r.Version, r.Display
	return m
}

func statusReplyOf(m Message) StatusReply {
	return StatusReply{Paused: m.Paused, Waiting: m.Count, Servers: m.Servers, Version: m.Version,
		Display: m.Display, SavedState: savedStateOf(m)}
}

// SavedState is what waits to be saved: decisions in a spool (Spooled),
// only in memory (Unsaved), and the sentence saying so ("" when every
// decision is in history). It answers OpStatus and OpQuit.
type SavedState struct {
	Spooled int
	Unsaved int
	Problem string
}

// Reply is s answering call id (a quit).
func (s SavedState) Reply(id uint64) Message {
	return Message{ID: id, Spooled: s.Spooled, Unsaved: s.Unsaved, Problem: s.Problem}
}

func savedStateOf(m Message) SavedState {
	return SavedState{Spooled: m.Spooled, Unsaved: m.Unsaved, Problem: m.Problem}
}

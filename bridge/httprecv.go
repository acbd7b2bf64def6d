package bridge

// The server's messages to the host, from a remote server: taken from the
// tap (fromServer), the stand-ins mcp-go reads in their stead, a message
// past the limit, and Read, which hands them to the relay and gives back
// each one's memory once the relay is done with it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/elicitray/elicitray/chars"
)

// fromServer takes each message the tap read from the server; msg is its
// to keep, and free (when not nil) gives msg's memory back (msgBuf.take).
// It returns the stand-in mcp-go reads for it (tapTransport): for an
// answer to the request whose stream it came on (or on no request's
// stream), the answer with its id and an empty result or error; else nil.
func (s *httpServer) fromServer(msg []byte, free func(), stream *sseStream) []byte {
	if free != nil {
		defer func() {
			if free != nil {
				free() // dropped, or copied
			}
		}()
	}
	if msg == nil {
		s.noteStream(stream)
		return nil
	}
	// The host reads one JSON-RPC message per line (PROTOCOL.md §7).
	// Over HTTP a message may span lines (an event's data lines, a
	// pretty-printed body); outside strings, where alone valid JSON has
	// line breaks, they are whitespace, and become spaces. What is not
	// JSON at all never reaches the host's stdout: the host is told of
	// the request it should have answered instead.
	if !json.Valid(msg) {
		s.log("%s sent something that is not JSON (%s); it does not go to the host", s.opts.URL, preview(msg))
		if stream != nil {
			s.noteStream(stream)
		}
		return nil
	}
	// In place: a message is held once. CR and LF are never part of a
	// longer UTF-8 sequence.
	for _, c := range []byte("\r\n") {
		for i := 0; ; {
			j := bytes.IndexByte(msg[i:], c)
			if j < 0 {
				break
			}
			i += j
			msg[i] = ' '
		}
	}
	held := msg
	env, err := scanEnvelope(msg)
	if err == nil && env.isRequest() && stream != nil && stream.key != "" {
		if sk, ok := idKey(env.ID); ok {
			s.mu.Lock()
			if r := s.inflight[stream.key]; r != nil && !r.answered {
				r.asked = append(r.asked, append(json.RawMessage(nil), env.ID...))
				s.asking[sk] = stream.key
			}
			s.mu.Unlock()
		}
	}
	if err == nil && env.isNotification() && env.Method == "notifications/cancelled" {
		if k, ok := cancelledID(env.Params); ok {
			s.mu.Lock()
			delete(s.asking, k) // withdrawn by the server itself
			s.mu.Unlock()
		}
	}
	// moot are the server's requests still unanswered when the request
	// whose stream they came on has its answer: see withdraw.
	var moot []json.RawMessage
	var stand []byte
	if err == nil && env.isResponse() {
		key, _ := idKey(env.ID)
		s.mu.Lock()
		r := s.inflight[key]
		if r == nil && stream != nil {
			// An answer on a stream to a request never sent (or long
			// answered): the host would take it for the answer to a
			// request of its own it has yet to send. A request's own
			// answer may still follow on its stream, which goes on.
			where := "its GET stream"
			if stream.key != "" {
				what := "request"
				if own := s.inflight[stream.key]; own != nil {
					what = own.method
				}
				where = "the stream of the host's " + what
			}
			s.mu.Unlock()
			s.log("%s sent, on %s, an answer with id %s, which no request in flight has; it is dropped, and the stream read on", s.opts.URL, where, preview(env.ID))
			s.noteStream(stream)
			return nil
		}
		if r != nil {
			if r.answered {
				s.mu.Unlock()
				return nil // a replay after a resume: the host has it
			}
			r.answered = true
			for _, id := range r.asked {
				if k, _ := idKey(id); s.asking[k] == key {
					delete(s.asking, k)
					moot = append(moot, id)
				}
			}
		}
		initialize := key == s.initKey
		listing := r != nil && r.method == "tools/list" && mcp.IsModernProtocol(s.version)
		s.mu.Unlock()
		if listing {
			var dropped []string
			if msg, dropped = s.params.listed(msg, env.Result); len(dropped) > 0 {
				s.log("left out of the tools the server listed, as a Streamable HTTP client must (SEP-2243), for invalid x-mcp-header annotations: %s", strings.Join(dropped, "; "))
			}
		}
		// An answer to nothing asked in a body goes on: the relay or
		// the host judges it.
		if v := protocolVersionOf(env.Result); initialize && v != "" {
			s.setVersion(v)
		}
		if initialize {
			s.initialized()
		}
		if stream == nil || stream.key == "" || stream.key == key {
			stand = standIn(env)
		}
	}
	if stream != nil {
		s.noteStream(stream)
	}
	// The line is the message and its newline, in the message's own
	// memory (which has room for it). A mapped message goes on in it only
	// as an answer, which the relay copies whatever of it it keeps; the
	// rest are few and small, and are copied here.
	var line []byte
	if free != nil && err == nil && env.isResponse() && len(msg) > 0 && &msg[0] == &held[0] {
		line = append(msg, '\n')
	} else if free != nil {
		line = append(append(make([]byte, 0, len(msg)+1), msg...), '\n')
	} else {
		line = append(msg, '\n')
	}
	out := outLine{line: line}
	if &line[0] == &held[0] {
		out.free, free = free, nil // Read gives it back
	}
	select {
	case s.out <- out:
	case <-s.done:
		if out.free != nil {
			out.free()
		}
	}
	s.withdraw(moot)
	return stand
}

// standIn is the answer mcp-go reads in the stead of the server's answer
// env: its id, and an empty result, or an error when it was one (mcp-go
// starts a session only on a result).
func standIn(env envelope) []byte {
	body := `,"result":{}}`
	if len(env.Error) > 0 {
		body = `,"error":{"code":-32603,"message":""}}`
	}
	return []byte(`{"jsonrpc":"2.0","id":` + string(env.ID) + body)
}

// tooLarge ends the request whose stream (or body) carried a message
// longer than the limit, with an error saying so; on the GET stream, it
// says so in the log (mcp-go opens the stream again).
func (s *httpServer) tooLarge(key string, err error) {
	var r *httpRequest
	if key != "" {
		s.mu.Lock()
		if r = s.inflight[key]; r != nil && !r.answered {
			r.answered = true
		} else {
			r = nil
		}
		s.mu.Unlock()
	}
	if r == nil {
		s.log("%s: %v", s.opts.URL, netSentence(err))
		return
	}
	s.answerError(r.id, err)
	r.cancel()
}

// withdraw hands the relay a notifications/cancelled for each server
// request whose own request has been answered while it was still open.
// A server request on a request's stream belongs to that request
// (PROTOCOL.md §11); once it is answered nobody waits for the answer. A
// server that gives up on its elicitation says so, but go-sdk sends that
// notice from a goroutine after the tool returns, when the stream has
// closed, and it is lost: the prompt stayed open for a call long over.
func (s *httpServer) withdraw(ids []json.RawMessage) {
	for _, id := range ids {
		line := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) +
			`,"reason":"the request it was part of has been answered"}}` + "\n")
		select {
		case s.out <- outLine{line: line}:
		case <-s.done:
			return
		}
	}
}

// preview is the start of b for a log line: at most 60 bytes, quoted,
// never ending inside a character.
func preview(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q…", chars.Bytes(b, 60))
	}
	return fmt.Sprintf("%q", b)
}

// noteStream records the SSE stream a request is answered on (its POST's,
// or a resumed GET's), for resuming it.
func (s *httpServer) noteStream(st *sseStream) {
	if key := st.key; key != "" {
		s.mu.Lock()
		if r := s.inflight[key]; r != nil {
			r.stream = st
		}
		s.mu.Unlock()
	}
}

// outLine is a line for Read, and what gives its memory back once the
// relay has done with it (nil for the heap's: msgBuf).
type outLine struct {
	line []byte
	free func()
}

func (s *httpServer) Read() ([]byte, error) {
	if s.cur.free != nil {
		s.cur.free() // the line Read returned last is valid until now
	}
	s.cur = outLine{}
	select {
	case s.cur = <-s.out:
		return s.cur.line, nil
	case <-s.done:
		select {
		case s.cur = <-s.out:
			return s.cur.line, nil
		default:
		}
		s.mu.Lock()
		err := s.lost
		s.mu.Unlock()
		if err == nil {
			err = io.EOF
		}
		return nil, err
	}
}

func (s *httpServer) Buffered() bool { return len(s.out) > 0 }

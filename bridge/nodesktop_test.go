package bridge

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// noDesktop is an Approver with no desktop to show anything on.
var noDesktop = ApproverFunc(func(context.Context, *Request) (*Result, error) {
	return nil, fmt.Errorf("%w: neither DISPLAY nor WAYLAND_DISPLAY is set", ErrNoDesktop)
})

type unshownCall struct {
	mode      string
	forwarded bool
}

// TestNoDesktop: with no desktop, an elicitation goes to a host that
// declared that mode, untouched, and the host's answer reaches the server;
// otherwise the server gets cancel. Either way the hook records it and the
// host's log says so once.
func TestNoDesktop(t *testing.T) {
	elicitation := `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Deploy?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}`
	urlElicitation := `{"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/a","elicitationId":"u1"}}`
	for _, tt := range []struct {
		name, caps              string
		forwardForm, forwardURL bool
	}{
		{"host declared form and url", `{"elicitation":{"form":{},"url":{}}}`, true, true},
		{"host declared {} (form only)", `{"elicitation":{}}`, true, false},
		{"host declared nothing", `{}`, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := make(chan unshownCall, 4)
			p := startPeer(t, &Options{Server: "ci", Approver: noDesktop, NoDesktop: func(req *Request, forwarded bool, err error) {
				calls <- unshownCall{req.Mode, forwarded}
			}})
			p.hostSends(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + tt.caps + `,"clientInfo":{"name":"host","version":"1"}}}`)
			p.serverGets()
			p.serverSends(initReply)
			p.hostGets()
			for _, c := range []struct {
				line    string
				forward bool
				mode    string
			}{{elicitation, tt.forwardForm, "form"}, {urlElicitation, tt.forwardURL, "url"}} {
				p.serverSends(c.line)
				if got := <-calls; got != (unshownCall{c.mode, c.forward}) {
					t.Errorf("%s: hook got %+v, want forwarded=%v", c.mode, got, c.forward)
				}
				if !c.forward {
					id := `"e1"`
					if c.mode == "url" {
						id = `"e2"`
					}
					jsonEq(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"cancel"}}`, p.serverGets())
					continue
				}
				if got := p.hostGets(); got != c.line {
					t.Fatalf("host got %s, want the elicitation as the server sent it", got)
				}
				answer := strings.Replace(c.line, `"method":"elicitation/create"`, `"result":{"action":"decline"},"x":0`, 1)
				answer = answer[:strings.Index(answer, `,"x":0`)] + "}"
				p.hostSends(answer)
				if got := p.serverGets(); got != answer {
					t.Fatalf("server got %s, want the host's answer %s", got, answer)
				}
			}
			p.marker()
			if n := strings.Count(p.stderr.String(), "no desktop"); n != 1 {
				t.Errorf("the host's log says it %d times, want once:\n%s", n, p.stderr.String())
			}
		})
	}
}

// TestNoDesktopModern: a 2026-07-28 round with no desktop goes to a host
// that declared elicitation in its _meta, as the server sent it but under
// the host's id; without that declaration the relay answers cancel.
func TestNoDesktopModern(t *testing.T) {
	round := `{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":` + nameSchema + `}}},"requestState":"s"}`
	t.Run("declared", func(t *testing.T) {
		p := startPeer(t, &Options{Approver: noDesktop})
		p.hostSends(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`)
		p.serverGets()
		p.serverSends(`{"jsonrpc":"2.0","id":5,"result":` + round + `}`)
		if got, want := p.hostGets(), `{"jsonrpc":"2.0","id":5,"result":`+round+`}`; got != want {
			t.Fatalf("host got %s, want %s", got, want)
		}
		p.serverMarker()
	})
	t.Run("not declared", func(t *testing.T) {
		p := startPeer(t, &Options{Approver: noDesktop})
		p.hostSends(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}`)
		p.serverGets()
		p.serverSends(`{"jsonrpc":"2.0","id":5,"result":` + round + `}`)
		retryOf(t, p.serverGets(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t",`+mergedMeta+`,"inputResponses":{"k":{"action":"cancel"}},"requestState":"s"}}`)
	})
}

//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitray/elicitray/app/internal/testkit"
)

// Hosts written in TypeScript, the language most hosts are written in: a
// host of our own written with the official TypeScript SDK
// (testdata/npm/tshost.mjs), and the MCP Inspector's CLI. Both start
// `elicitray wrap` themselves, as a host does from its MCP config, so the
// wrapper gets only the environment the host gives it: the SDK's default
// (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus the config's "env". Every
// helper here takes that env as a parameter; nil is the SDK's default
// environment alone (DESIGN.md: "Hosts strip the environment").

// Installed by make deps-npm (testdata/npm/package-lock.json).
const (
	// tsHostScript is the TypeScript SDK host; it runs on the system's
	// node (Node 20 or later).
	tsHostScript = "../../testdata/npm/tshost.mjs"
	// tsSDKPackage is the SDK it imports (1.32.2, server-everything's own).
	tsSDKPackage = "../../testdata/npm/node_modules/@modelcontextprotocol/sdk/package.json"
	// inspectorBin is the MCP Inspector's launcher (mcp-inspector).
	inspectorBin = "../../testdata/npm/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
	// inspectorNode is Node 22 from the npm package "node": the Inspector
	// needs Node 22.19 or later.
	inspectorNode = "../../testdata/npm/node_modules/node/bin/node"
	// everythingScript is server-everything's entry point, which a host
	// config starts as `node …/dist/index.js stdio`.
	everythingScript = "../../testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)

// needNPM returns the absolute paths of the npm-installed files, or skips t
// (fails it in CI) when one is missing.
func needNPM(t *testing.T, paths ...string) []string {
	t.Helper()
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err == nil {
			_, err = os.Stat(a)
		}
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%v: run make deps-npm", err)
			}
			t.Skipf("%v: run make deps-npm", err)
		}
		abs[i] = a
	}
	return abs
}

// systemNode is the node on PATH, which runs the TypeScript SDK host and
// server-everything.
func systemNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node (Node.js 20 or later) is needed: %v", err)
		}
		t.Skipf("node (Node.js 20 or later) is needed: %v", err)
	}
	return node
}

// wrapCommand is `elicitray wrap --name name -- server…`: what a host's
// config names as the server's command.
func wrapCommand(t testing.TB, name string, server ...string) []string {
	return append([]string{testkit.Binary(t), "wrap", "--name", name, "--"}, server...)
}

// everythingCommand is server-everything started the way its README's host
// config does: `node …/dist/index.js stdio`, node found on the PATH the
// host passes on.
func everythingCommand(t *testing.T) []string {
	t.Helper()
	return []string{"node", needNPM(t, everythingScript)[0], "stdio"}
}

// tsHostCommand runs the TypeScript SDK host with hostArgs (its options:
// --tool, --wire…) in front of the command line server. env is the
// transport's env, a host config's "env" (nil: the SDK's default
// environment alone). The host itself inherits the test's environment.
func tsHostCommand(t *testing.T, env map[string]string, hostArgs []string, server ...string) *exec.Cmd {
	t.Helper()
	node := systemNode(t)
	script := needNPM(t, tsHostScript, tsSDKPackage)[0]
	args := []string{script}
	if env != nil {
		b, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, "--env", string(b))
	}
	args = append(append(append(args, hostArgs...), "--"), server...)
	return exec.Command(node, args...)
}

// inspectorCommand runs the MCP Inspector's CLI (`mcp-inspector --cli`) in
// front of the command line server: it calls tool with args (nil: none) and
// prints the result as one JSON object (--format json). env is what its -e
// options give the server, a host config's "env" (nil: no -e, the SDK's
// default environment alone). The CLI declares no elicitation of its own
// (its source sets `elicit: false`): the wrapper does.
func inspectorCommand(t *testing.T, env map[string]string, tool string, args map[string]any, server ...string) *exec.Cmd {
	t.Helper()
	paths := needNPM(t, inspectorNode, inspectorBin)
	// Connecting waits as long as the tests' other waits: on a loaded
	// machine the wrapper and its server may take longer to start than
	// the Inspector's default 15 s.
	argv := []string{paths[1], "--cli", "--format", "json", "--connect-timeout", strconv.Itoa(int(desktopWait.Milliseconds()))}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		argv = append(argv, "-e", k+"="+env[k])
	}
	argv = append(argv, "--method", "tools/call", "--tool-name", tool)
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		argv = append(argv, "--tool-args-json", string(b))
	}
	argv = append(append(argv, "--"), server...)
	return exec.Command(paths[0], argv...)
}

// hostProc is one run of a host program.
type hostProc struct {
	done   chan struct{} // closed when it ended; then:
	stdout []byte        // what it printed
	err    error         // from exec.Cmd.Wait
}

// runHost starts cmd with its stderr (and so its wrapper's and server's) in
// logPath, and collects its stdout until it ends.
func runHost(t *testing.T, cmd *exec.Cmd, logPath string) *hostProc {
	t.Helper()
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	// A file, not a buffer, for stderr: the detached hub a wrapper starts
	// must not hold a pipe that Wait waits for.
	cmd.Stdout, cmd.Stderr = &stdout, logf
	// Should a process the host started hold its stdout after it ended,
	// Wait gives up on the pipe instead of waiting for ever.
	cmd.WaitDelay = desktopWait
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	p := &hostProc{done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		p.stdout = stdout.Bytes()
		close(p.done)
	}()
	t.Cleanup(func() {
		// A test that failed before the host ended must not leave it.
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

// tsHostLine is one line the TypeScript SDK host prints.
type tsHostLine struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Tool            string          `json:"tool"`
	Result          *callToolResult `json:"result"`
	Error           *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// callToolResult is the part of a CallToolResult the tests read.
type callToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// text is the result's text content, joined by newlines.
func (r *callToolResult) text() string {
	var texts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// reply is the line as the matrix's hosts report a call.
func (l tsHostLine) reply() hostReply {
	switch {
	case l.Error != nil:
		// The SDK's McpError message already says "MCP error CODE: …".
		return hostReply{err: errors.New(l.Error.Message)}
	case l.Result == nil:
		return hostReply{err: errors.New("the TS host printed neither a result nor an error")}
	}
	return hostReply{text: l.Result.text(), isError: l.Result.IsError}
}

// tsHost is a session of the TypeScript SDK host for the interop matrix:
// tshost.mjs without --tool, one call per line on its stdin. It reports every
// message it sends and receives in a wire file, read into wire after each
// call (the host writes them before it prints the call's line).
type tsHost struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan []byte // its stdout, line by line; closed at its end
	exited  chan error  // then its exit
	version string

	mu       sync.Mutex // guards the reading of the wire file
	wire     *hostWire
	wireFile *os.File
	partial  []byte // the start of a wire line not yet ended
}

var _ hostSession = (*tsHost)(nil)

// startTSInteropSession starts the TypeScript SDK host in front of `elicitray
// wrap --name name -- server…`. The transport's env is env ("KEY=VALUE"):
// ELICITRAY_HOME (the test's hub is there; a user's config would set it the
// same way) and what the server needs; the rest is the SDK's default
// environment.
// version must be "": SDK 1.x asks for no other than its latest. Cleanup
// checks what startInteropSession's does.
func startTSInteropSession(t *testing.T, version, name string, env []string, server ...string) *interopSession {
	t.Helper()
	if version != "" {
		t.Fatalf("the TypeScript SDK 1.x host cannot ask for protocol version %s: it always asks for its latest", version)
	}
	dir := t.TempDir()
	s := &interopSession{name: name, wire: &hostWire{}, logPath: filepath.Join(dir, "host.log")}
	hostEnv := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		hostEnv[k] = v
	}
	// The wire file exists before the host appends to it, so that reading
	// it never races its creation.
	wirePath := filepath.Join(dir, "wire.jsonl")
	if err := os.WriteFile(wirePath, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wireFile, err := os.Open(wirePath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wireFile.Close() })
	cmd := tsHostCommand(t, hostEnv, []string{"--wire", wirePath}, wrapCommand(t, name, server...)...)
	logf, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	h := &tsHost{cmd: cmd, lines: make(chan []byte, 16), exited: make(chan error, 1), wire: s.wire, wireFile: wireFile}
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("starting the TS host: %v", err)
	}
	go func() {
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				h.lines <- line
			}
			if err != nil {
				break
			}
		}
		close(h.lines)
		// Only now: Wait closes the pipe.
		h.exited <- cmd.Wait()
		logf.Close()
	}()
	s.host = h

	// Its first line says that it connected, or why not.
	ctx, cancel := context.WithTimeout(t.Context(), interopWait)
	defer cancel()
	first, err := h.next(ctx)
	if err == nil && first.Error != nil {
		err = errors.New(first.Error.Message)
	}
	if err != nil {
		_ = h.close()
		t.Fatalf("the TS host did not connect to elicitray wrap: %v%s", err, s.diagnostics())
	}
	h.version = first.ProtocolVersion
	h.readWire()
	s.checkHostDeclaresNoElicitation(t)
	t.Cleanup(func() {
		if err := h.close(); err != nil {
			t.Errorf("the TS host ended with %v%s", err, s.diagnostics())
		}
		s.checkWholeSession(t)
	})
	return s
}

// next is the host's next line.
func (h *tsHost) next(ctx context.Context) (tsHostLine, error) {
	var line tsHostLine
	select {
	case b, ok := <-h.lines:
		if !ok {
			return line, errors.New("the TS host ended")
		}
		if err := json.Unmarshal(b, &line); err != nil {
			return line, fmt.Errorf("the TS host printed %q: %w", b, err)
		}
		return line, nil
	case <-ctx.Done():
		return line, fmt.Errorf("the TS host printed nothing: %w", ctx.Err())
	}
}

func (h *tsHost) protocolVersion() string { return h.version }

func (h *tsHost) call(ctx context.Context, tool string, args map[string]any) hostReply {
	b, err := json.Marshal(map[string]any{"tool": tool, "arguments": args})
	if err != nil {
		return hostReply{err: err}
	}
	if _, err := h.stdin.Write(append(b, '\n')); err != nil {
		return hostReply{err: fmt.Errorf("writing to the TS host: %w", err)}
	}
	line, err := h.next(ctx)
	h.readWire()
	if err != nil {
		return hostReply{err: err}
	}
	if line.Tool != tool {
		return hostReply{err: fmt.Errorf("the TS host answered a call of %q, want %q", line.Tool, tool)}
	}
	return line.reply()
}

// close ends the session as a host does: its stdin closes, the SDK closes
// the transport (the wrapper's stdin; a signal two seconds later if it has
// not exited) and the host exits. Then the wire has all it ever will.
func (h *tsHost) close() error {
	_ = h.stdin.Close()
	var err error
	// Lines nobody asked for (a working run has none) are read to the end,
	// so that the reader gets to Wait.
	timeout := time.After(interopWait)
	for ended := false; !ended; {
		select {
		case _, ok := <-h.lines:
			ended = !ok
		case <-timeout:
			_ = h.cmd.Process.Kill()
			err = fmt.Errorf("the TS host did not exit %v after its stdin closed: killed", interopWait)
			timeout = nil
		}
	}
	if werr := <-h.exited; err == nil {
		err = werr
	}
	h.readWire()
	return err
}

// readWire adds the messages the host reported since the last read to wire.
func (h *tsHost) readWire() {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, err := io.ReadAll(h.wireFile)
	if err != nil {
		return
	}
	h.partial = append(h.partial, b...)
	for {
		i := bytes.IndexByte(h.partial, '\n')
		if i < 0 {
			return
		}
		var rec struct {
			Dir     string          `json:"dir"`
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(h.partial[:i], &rec); err == nil {
			h.wire.add(rec.Dir == "send", rec.Message)
		}
		h.partial = h.partial[i+1:]
	}
}

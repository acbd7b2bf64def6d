package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The hub's named pipe on Windows (Listen, Dial): overlapped pipe handles
// made with the Win32 calls themselves, handed to os.NewFile, which puts
// them on Go's own I/O completion port, so that reads and writes wait in
// the runtime poller and Close ends a read that waits. go-winio does the
// same with a completion port of its own; under Wine 8 that port never
// reports a client's connection to a pipe (its Accept waits for ever, in
// the tests of make test-windows), while an event-driven
// ConnectNamedPipe, used here, works on Windows and under Wine alike.

// pipeBuffer is the size of each direction's buffer in the pipe: a
// message of the hub's API is usually far smaller.
const pipeBuffer = 64 << 10

// pipeListener listens on a named pipe. One instance of the pipe always
// waits for a client (next), so that a client never finds the name gone
// between two connections: it would take that for no hub.
type pipeListener struct {
	name    string
	name16  *uint16
	sa      *windows.SecurityAttributes
	closing windows.Handle // an event, set by Close

	mu     sync.Mutex
	next   windows.Handle // the instance waiting for the next client; 0 while Accept holds it
	closed bool
}

// listenPipe creates the first instance of the pipe name with the
// security descriptor sddl. FILE_FLAG_FIRST_PIPE_INSTANCE makes it fail
// when a pipe of that name exists already (Windows; Wine 8 does not
// refuse it).
func listenPipe(name, sddl string) (*pipeListener, error) {
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	sd, err := windows.SecurityDescriptorFromString(sddl)
	if err != nil {
		return nil, fmt.Errorf("the pipe's security descriptor: %w", err)
	}
	sa := &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}
	l := &pipeListener{name: name, name16: name16, sa: sa}
	if l.next, err = l.instance(true); err != nil {
		return nil, err
	}
	if l.closing, err = windows.CreateEvent(nil, 1, 0, nil); err != nil {
		windows.CloseHandle(l.next)
		return nil, err
	}
	return l, nil
}

// instance creates an instance of the pipe, overlapped, local clients only.
func (l *pipeListener) instance(first bool) (windows.Handle, error) {
	mode := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		mode |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	h, err := windows.CreateNamedPipe(l.name16, mode,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		windows.PIPE_UNLIMITED_INSTANCES, pipeBuffer, pipeBuffer, 0, l.sa)
	if err != nil {
		return 0, &os.PathError{Op: "listen", Path: l.name, Err: err}
	}
	return h, nil
}

// Accept waits for a client on the waiting instance, makes the next one,
// and returns the connection. Close ends the wait with net.ErrClosed.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	h := l.next
	l.next = 0
	closed := l.closed
	l.mu.Unlock()
	if closed {
		if h != 0 {
			windows.CloseHandle(h)
		}
		return nil, net.ErrClosed
	}
	if h == 0 { // a failed Accept left none
		var err error
		if h, err = l.instance(false); err != nil {
			return nil, err
		}
	}
	if err := l.connect(h); err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	next, err := l.instance(false)
	l.mu.Lock()
	if l.closed {
		if next != 0 {
			windows.CloseHandle(next)
		}
	} else {
		l.next = next
	}
	l.mu.Unlock()
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return newNPConn(h, l.name), nil
}

// connect waits until a client connects to h, or Close.
func (l *pipeListener) connect(h windows.Handle) error {
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(ev)
	o := &windows.Overlapped{HEvent: ev}
	switch err := windows.ConnectNamedPipe(h, o); {
	case err == nil, errors.Is(err, windows.ERROR_PIPE_CONNECTED):
		return nil // a client came before the wait
	case !errors.Is(err, windows.ERROR_IO_PENDING):
		return &os.PathError{Op: "accept", Path: l.name, Err: err}
	}
	which, err := windows.WaitForMultipleObjects([]windows.Handle{ev, l.closing}, false, windows.INFINITE)
	if err == nil && which == windows.WAIT_OBJECT_0 {
		var n uint32
		if err := windows.GetOverlappedResult(h, o, &n, false); err != nil {
			return &os.PathError{Op: "accept", Path: l.name, Err: err}
		}
		return nil
	}
	// Closed: the pending connect is cancelled, and waited for, before o
	// and ev go.
	_ = windows.CancelIoEx(h, o)
	var n uint32
	_ = windows.GetOverlappedResult(h, o, &n, true)
	if err != nil {
		return err
	}
	return net.ErrClosed
}

func (l *pipeListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return net.ErrClosed
	}
	l.closed = true
	if l.next != 0 {
		windows.CloseHandle(l.next)
		l.next = 0
	}
	return windows.SetEvent(l.closing)
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.name) }

// dialPipe connects to the pipe name, as the hub's client: the server may
// identify this process but not act as it (SECURITY_IDENTIFICATION). A
// pipe whose instances are all busy is tried again until ctx ends.
func dialPipe(ctx context.Context, name string) (net.Conn, error) {
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	for {
		h, err := windows.CreateFile(name16, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
			windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
		switch {
		case err == nil:
			return newNPConn(h, name), nil
		case errors.Is(err, windows.ERROR_FILE_NOT_FOUND):
			return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
		case !errors.Is(err, windows.ERROR_PIPE_BUSY):
			return nil, &os.PathError{Op: "dial", Path: name, Err: err}
		}
		// Busy for the moment between a client's connection and the
		// hub's next instance.
		t := time.NewTimer(5 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// npConn is one end of a connection on the pipe. Fd gives Peer the
// handle.
type npConn struct {
	*os.File
	addr pipeAddr
}

func newNPConn(h windows.Handle, name string) *npConn {
	return &npConn{File: os.NewFile(uintptr(h), name), addr: pipeAddr(name)}
}

func (c *npConn) LocalAddr() net.Addr  { return c.addr }
func (c *npConn) RemoteAddr() net.Addr { return c.addr }

// pipeAddr is a pipe's name as a net.Addr.
type pipeAddr string

func (pipeAddr) Network() string  { return "pipe" }
func (a pipeAddr) String() string { return string(a) }

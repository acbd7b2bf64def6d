//go:build linux

package bridge

import (
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pipeIn is a framer's Linux fast path, for an input that is a pipe and an
// output that takes splice (a pipe or a socket). tee(2) duplicates what
// waits in the input into a private pipe, from which the framer reads it
// to find lines and route them; the lines that pass are then moved from
// the input to the output by splice(2), inside the kernel, and the ones
// the relay handles itself are spliced to /dev/null. A byte is copied
// once into the process instead of in and out again.
type pipeIn struct {
	in, out syscall.RawConn
	// scratchR and scratchW are the private pipe tee fills; it is empty
	// between calls.
	scratchR, scratchW int
	devnull            int
	// splicing is cleared when the output refused a splice: then plain
	// reads and writes carry everything.
	splicing bool
	// pollable is set when Go's poller watches the output (it was
	// non-blocking when opened): splice then waits for room through it.
	// inPollable is the same for the input: tee waits for bytes through it.
	pollable, inPollable bool
	// mu guards closed, and the private pipe and /dev/null while in use:
	// Run lets them go when it returns, while the host's pump may still
	// wait on a host that outlives the server.
	mu     sync.Mutex
	closed bool
}

// newPipeIn returns the fast path from in to out, or nil when in is no
// pipe or out cannot be spliced to. It also asks for frameBuf-sized pipes,
// so that bursts move in few system calls.
func newPipeIn(in, out *os.File) *pipeIn {
	if in == nil || out == nil {
		return nil
	}
	growPipe(in)
	growPipe(out)
	if fileType(in) != unix.S_IFIFO {
		return nil
	}
	if t := fileType(out); t != unix.S_IFIFO && t != unix.S_IFSOCK {
		return nil
	}
	rin, err := in.SyscallConn()
	if err != nil {
		return nil
	}
	rout, err := out.SyscallConn()
	if err != nil {
		return nil
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil
	}
	_, _ = unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, frameBuf)
	devnull, err := unix.Open(os.DevNull, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil
	}
	// A file Go's poller watches takes deadlines; one it does not says so.
	pollable := out.SetWriteDeadline(time.Time{}) == nil
	inPollable := in.SetReadDeadline(time.Time{}) == nil
	return &pipeIn{in: rin, out: rout, scratchR: p[0], scratchW: p[1], devnull: devnull, splicing: true, pollable: pollable, inPollable: inPollable}
}

// growPipe asks the kernel for a pipe of frameBuf bytes (64 KiB is the
// default). It may refuse (fs.pipe-max-size, or the user's pipe pages
// used up): the pipe then stays as it is.
func growPipe(f *os.File) {
	if n := pipeSize(f); n > 0 && n < frameBuf {
		if rc, err := f.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, frameBuf) })
		}
	}
}

// pipeSize returns the capacity of the pipe f is an end of, or 0 when f is
// no pipe.
func pipeSize(f *os.File) int {
	if f == nil || fileType(f) != unix.S_IFIFO {
		return 0
	}
	n := 0
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { n, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	}
	return max(n, 0)
}

func fileType(f *os.File) uint32 {
	var st unix.Stat_t
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var serr error = io.EOF
	_ = rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) })
	if serr != nil {
		return 0
	}
	return st.Mode & unix.S_IFMT
}

// tee waits until bytes wait in the input, or it has ended, and copies
// what waits into dst, leaving it in the input; it returns how much: 0
// when the input has ended or tee is off, and the caller then reads. The
// wait is a read's (Go's poller, or poll(2) for a blocking input), without
// mu, so that close does not wait on a quiet peer.
func (p *pipeIn) tee(dst []byte) (int, error) {
	if p == nil || !p.splicing {
		return 0, nil
	}
	var n int
	var terr error
	// once tees what waits now; it reports false when nothing does.
	once := func(fd uintptr) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.closed {
			return true // plain reads from here on
		}
		for {
			k, err := rawTee(int(fd), p.scratchW, len(dst))
			switch {
			case err == unix.EINTR:
				continue
			case err == unix.EAGAIN:
				return false
			case err != nil:
				// Not teeable after all: reads take over.
				p.splicing = false
				return true
			}
			n = int(k) // 0: the writers are gone, and a read says so
			return true
		}
	}
	var cerr error
	if p.inPollable {
		cerr = p.in.Read(once)
	} else {
		cerr = p.in.Control(func(fd uintptr) {
			for !once(fd) {
				if terr = waitFD(int(fd), unix.POLLIN); terr != nil {
					return
				}
			}
		})
	}
	if cerr != nil || terr != nil || n == 0 {
		return 0, nil // the read that follows tells what happened
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		// The private pipe went with Run: the bytes, still in the
		// input, are read by the caller as if never teed.
		return 0, nil
	}
	for got := 0; got < n; {
		k, rerr := rawRead(p.scratchR, dst[got:n])
		if rerr == unix.EINTR {
			continue
		}
		if rerr != nil || k <= 0 {
			return 0, os.NewSyscallError("read", rerr)
		}
		got += k
	}
	return n, nil
}

// splice moves the next n bytes of the input, which are there (they were
// teed), to the output, and returns how many it moved. While the output is
// full it waits through Go's poller, not poll(2): closing the output (the
// server's stdin at shutdown, stdio.go) then ends the wait, where a raw
// poll would hold the file open, and its Close, forever.
func (p *pipeIn) splice(n int) (int, error) {
	if p == nil {
		return 0, errNoSplice
	}
	var moved int
	var err error
	if !p.pollable {
		// A blocking output: splice blocks as a write would, and poll(2)
		// covers an output made non-blocking behind Go's back.
		cerr := p.in.Control(func(ifd uintptr) {
			cerr := p.out.Control(func(ofd uintptr) {
				moved, err = spliceAll(int(ifd), int(ofd), n, unix.SPLICE_F_MOVE)
			})
			if err == nil {
				err = cerr
			}
		})
		if err == nil {
			err = cerr
		}
		return moved, err
	}
	cerr := p.in.Control(func(ifd uintptr) {
		werr := p.out.Write(func(ofd uintptr) bool {
			for moved < n {
				k, serr := rawSplice(int(ifd), int(ofd), n-moved, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
				switch {
				case serr == unix.EINTR:
					continue
				case serr == unix.EAGAIN:
					return false // the output is full: wait until it has room
				case serr != nil:
					err = os.NewSyscallError("splice", serr)
					return true
				case k == 0:
					err = io.ErrUnexpectedEOF
					return true
				}
				moved += int(k)
			}
			return true
		})
		if err == nil {
			err = werr
		}
	})
	if err == nil {
		err = cerr
	}
	return moved, err
}

// drop takes the next n bytes out of the input without relaying them: the
// relay has them already.
func (p *pipeIn) drop(n int) error {
	if p == nil {
		return errNoSplice
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	cerr := p.in.Control(func(fd uintptr) {
		if p.closed {
			// /dev/null went with Run: the bytes, which are there
			// (teed), are read and dropped.
			err = readAway(int(fd), n)
			return
		}
		_, err = spliceAll(int(fd), p.devnull, n, 0)
	})
	if err == nil {
		err = cerr
	}
	return err
}

// readAway reads n bytes that wait in fd and drops them.
func readAway(fd, n int) error {
	var trash [64 << 10]byte
	for n > 0 {
		k, err := unix.Read(fd, trash[:min(n, len(trash))])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if perr := waitFD(fd, unix.POLLIN); perr != nil {
				return perr
			}
			continue
		case err != nil:
			return os.NewSyscallError("read", err)
		case k == 0:
			return io.ErrUnexpectedEOF
		}
		n -= k
	}
	return nil
}

// spliceAll splices n bytes from in to out, waiting (poll) while out is
// full: a non-blocking end makes splice say EAGAIN instead of waiting.
func spliceAll(in, out, n, flags int) (int, error) {
	moved := 0
	for moved < n {
		k, err := unix.Splice(in, nil, out, nil, n-moved, flags)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if perr := waitFD(out, unix.POLLOUT); perr != nil {
				return moved, perr
			}
			continue
		case err != nil:
			return moved, os.NewSyscallError("splice", err)
		case k == 0:
			return moved, io.ErrUnexpectedEOF
		}
		moved += int(k)
	}
	return moved, nil
}

// waitFD waits until fd is ready for events, or has failed (the peer
// left: the next call says how).
func waitFD(fd int, events int16) error {
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: events}}, -1)
		if err != unix.EINTR {
			return err
		}
	}
}

// noSplice turns the fast path off: the output took no splice.
func (p *pipeIn) noSplice() {
	if p != nil {
		p.splicing = false
	}
}

// close releases the private pipe and /dev/null.
func (p *pipeIn) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	unix.Close(p.scratchR)
	unix.Close(p.scratchW)
	unix.Close(p.devnull)
}

// rawTee, rawSplice and rawRead make tee(2) (without waiting), splice(2)
// (without offsets) and read(2) as raw system calls: for the calls of the
// fast path that never wait (the bytes are there, teed; a full output says
// EAGAIN). Go's scheduler is not told of a raw call. Told of one (a plain
// syscall), it lets the P go when the call runs past its monitor's 20 µs
// tick, as a 1 MiB read does, and every P it takes back keeps the monitor
// waking each 20 µs instead of backing off to 10 ms: about 50,000 wake-ups
// a second while a stream flows, 14% of the wrapper's time relaying 1 kB
// lines on 2 cores (perf).
func rawTee(in, out, n int) (int, error) {
	r, _, e := unix.RawSyscall6(unix.SYS_TEE, uintptr(in), uintptr(out), uintptr(n), unix.SPLICE_F_NONBLOCK, 0, 0)
	return rawResult(r, e)
}

func rawSplice(in, out, n, flags int) (int, error) {
	r, _, e := unix.RawSyscall6(unix.SYS_SPLICE, uintptr(in), 0, uintptr(out), 0, uintptr(n), uintptr(flags))
	return rawResult(r, e)
}

func rawRead(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return rawResult(r, e)
}

func rawResult(r uintptr, e unix.Errno) (int, error) {
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// pollable returns a file for f's pipe that Go's poller watches, when f
// is a pipe the process got blocking (the stdin and stdout a host gives
// the wrapper), and nil otherwise; done closes it. The file is the pipe
// opened again through /proc/self/fd, non-blocking: an open file
// description of its own, so that the one the host gave, which other
// processes may share (a shell's pipeline, a stderr that is the same
// pipe), stays blocking, also after a kill -9. A socket (Node hosts) has
// no such second opening and is left as it is. Why: a blocking pipe is
// waited on in poll(2) or a blocking splice, a system call Go's scheduler
// is told of, and a P it takes back from one keeps its monitor waking
// each 20 µs (rawTee); through the poller the wait costs none of that.
// Relaying 1 kB lines on 2 cores it took the wrapper's CPU time from 2.0
// to 1.8 s a 2 GB stream.
func pollable(f *os.File) (pf *os.File, done func()) {
	if f == nil || f.SetDeadline(time.Time{}) == nil || fileType(f) != unix.S_IFIFO {
		return nil, nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil
	}
	fd := -1
	_ = rc.Control(func(orig uintptr) {
		flags, err := unix.FcntlInt(orig, unix.F_GETFL, 0)
		if err != nil {
			return
		}
		again, err := unix.Open("/proc/self/fd/"+strconv.Itoa(int(orig)), flags&unix.O_ACCMODE|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return // no /proc, or a FIFO with no reader left: as it is
		}
		// The same pipe, or none: /proc may not be the kernel's.
		var a, b unix.Stat_t
		if unix.Fstat(int(orig), &a) != nil || unix.Fstat(again, &b) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
			unix.Close(again)
			return
		}
		fd = again
	})
	if fd < 0 {
		return nil, nil
	}
	pf = os.NewFile(uintptr(fd), f.Name())
	return pf, func() { pf.Close() }
}

// endSocketWrite shuts down the writing side of f when it is a socket (a
// Node host's stdout is one end of a socketpair). A splice(2) into a socket
// whose reader stopped blocks in the kernel, past any deadline, holding the
// lock of the server's pipe it reads, so that not even SIGKILL ends a
// server writing into that pipe; shutting the socket's writing side ends
// that splice at once (lineWriter.abandon: the host's writes are given up).
func endSocketWrite(f *os.File) {
	if fileType(f) != unix.S_IFSOCK {
		return
	}
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_WR) })
	}
}

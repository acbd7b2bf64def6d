package bridge

import (
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// The servers the tests start are real processes. On Unix they are sh and
// cat; Windows has neither, and no way to hand a child more pipes than its
// three standard ones, so there the test binary is the server (TestMain,
// with serverEnv naming what it does): "cat" copies its stdin to its
// stdout, and "dial ADDR" stands for the peer's `cat <&4 & exec cat >&3`,
// with a loopback TCP connection to the test where the pipes were.
const serverEnv = "ELICITRAY_BRIDGE_TEST_SERVER"

func TestMain(m *testing.M) {
	mode := os.Getenv(serverEnv)
	switch {
	case mode == "":
		os.Exit(m.Run())
	case mode == "cat":
		_, _ = io.Copy(os.Stdout, os.Stdin)
	case len(mode) > 5 && mode[:5] == "dial ":
		conn, err := net.Dial("tcp", mode[5:])
		if err != nil {
			os.Exit(2)
		}
		out := make(chan struct{})
		go func() {
			_, _ = io.Copy(os.Stdout, conn)
			os.Stdout.Close()
			close(out)
		}()
		_, _ = io.Copy(conn, os.Stdin)
		_ = conn.(*net.TCPConn).CloseWrite()
		<-out
	}
	os.Exit(0)
}

// catServer is `cat`: a server that echoes what it is sent.
func catServer() *exec.Cmd {
	if runtime.GOOS != "windows" {
		return exec.Command("cat")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serverEnv+"=cat")
	return cmd
}

// peerServer is the peer's server (relay_test.go): the test reads what
// it receives on stdin from gotSrv, and what the test writes to server it
// writes on its stdout; done releases what it holds. On Unix it is
// `sh -c 'cat <&4 & exec cat >&3'` with two pipes. ended is called when
// the relay has ended: on Windows a server that never dialled back (it
// did not start, or could not connect) then fails the test's reads
// instead of leaving them waiting.
func peerServer(t testing.TB) (cmd *exec.Cmd, gotSrv io.Reader, server io.WriteCloser, done, ended func()) {
	t.Helper()
	if runtime.GOOS == "windows" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), serverEnv+"=dial "+l.Addr().String())
		c := &acceptedConn{l: l, ready: make(chan struct{})}
		go c.accept()
		return cmd, c, c, func() { l.Close(); c.Close() }, func() { l.Close() }
	}
	recvR, recvW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	sendR, sendW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("sh", "-c", "cat <&4 & exec cat >&3")
	cmd.ExtraFiles = []*os.File{recvW, sendR}
	return cmd, recvR, sendW, func() {
		for _, f := range []*os.File{recvR, recvW, sendR} {
			f.Close()
		}
	}, func() {}
}

// acceptedConn is the test's end of the Windows server's connection, once
// the server has dialled it (it starts with the relay). Close is the
// pipe's close: the server's stdout ends.
type acceptedConn struct {
	l     net.Listener
	ready chan struct{}
	conn  *net.TCPConn
	err   error
}

func (c *acceptedConn) accept() {
	conn, err := c.l.Accept()
	if err == nil {
		c.conn = conn.(*net.TCPConn)
	}
	c.err = err
	close(c.ready)
}

func (c *acceptedConn) Read(p []byte) (int, error) {
	<-c.ready
	if c.err != nil {
		return 0, c.err
	}
	return c.conn.Read(p)
}

func (c *acceptedConn) Write(p []byte) (int, error) {
	<-c.ready
	if c.err != nil {
		return 0, c.err
	}
	return c.conn.Write(p)
}

func (c *acceptedConn) Close() error {
	select {
	case <-c.ready:
	default:
		c.l.Close()
		<-c.ready
	}
	if c.conn != nil {
		return c.conn.CloseWrite()
	}
	return nil
}

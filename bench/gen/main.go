// Command gen writes a stream of JSON-RPC lines to stdout for the relay
// throughput measure of `make bench` (bench/run): the host's side of
// `gen | elicitray wrap -- cat | sink`. When the stream is written it prints
// the number of bytes and their CRC-32C on stderr, as "BYTES CRC", for the
// harness to compare with what sink read. The stream starts with one short
// notification, which any relay passes on at once: sink's clock starts at
// its first byte, so that the time the relay takes to start is not counted
// and a relay that holds a big line until it is whole is not timed from its
// first byte out.
//
//	gen -kind result -size 1024 -bytes 1073741824
package main

import (
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"strings"
)

func main() {
	kind := flag.String("kind", "result", "message kind: result (no \"method\" key) or notification")
	size := flag.Int("size", 1024, "bytes per message, newline included")
	total := flag.Int64("bytes", 1<<30, "bytes to write at least (whole messages)")
	flag.Parse()
	msg, err := message(*kind, *size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
	// Small messages go out in blocks of about 256 KiB, as a busy host's
	// buffered writer sends them; a big line goes out in one write.
	block := msg
	if n := (256 << 10) / len(msg); n > 1 {
		block = []byte(strings.Repeat(string(msg), n))
	}
	tab := crc32.MakeTable(crc32.Castagnoli)
	var sum uint32
	var written int64
	preamble := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"start"}}` + "\n")
	if _, err := os.Stdout.Write(preamble); err != nil {
		fmt.Fprintln(os.Stderr, "gen: writing:", err)
		os.Exit(1)
	}
	sum = crc32.Update(sum, tab, preamble)
	written += int64(len(preamble))
	for written < *total {
		n, err := os.Stdout.Write(block)
		sum = crc32.Update(sum, tab, block[:n])
		written += int64(n)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gen: writing after %d bytes: %v\n", written, err)
			os.Exit(1)
		}
	}
	if err := os.Stdout.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "gen: closing stdout:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%d %08x\n", written, sum)
}

// message is one JSON-RPC line of exactly size bytes, newline included.
// A result carries no "method" key; a notification does, so a relay that
// looks for elicitray's methods has to look at it.
func message(kind string, size int) ([]byte, error) {
	var head, tail string
	switch kind {
	case "result":
		head, tail = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`, `"}]}}`
	case "notification":
		head, tail = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`, `"}}`
	default:
		return nil, fmt.Errorf("unknown kind %q (want result or notification)", kind)
	}
	pad := size - len(head) - len(tail) - 1
	if pad < 0 {
		return nil, fmt.Errorf("a %s message needs at least %d bytes, not %d", kind, len(head)+len(tail)+1, size)
	}
	// Varied text, so that nothing downstream gains from runs of one byte.
	var b strings.Builder
	b.Grow(size)
	b.WriteString(head)
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
	for i := range pad {
		b.WriteByte(alphabet[(i*7+i/64)%len(alphabet)])
	}
	b.WriteString(tail)
	b.WriteByte('\n')
	return []byte(b.String()), nil
}

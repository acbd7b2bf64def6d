// Command sink reads stdin to its end and prints the number of bytes, their
// CRC-32C and the nanoseconds from the first byte to the end on stdout, as
// "BYTES CRC NS": the end of the relay throughput
// pipeline of `make bench` (bench/run), whose harness compares it with
// what gen wrote.
package main

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"
)

func main() {
	tab := crc32.MakeTable(crc32.Castagnoli)
	buf := make([]byte, 1<<20)
	var sum uint32
	var read int64
	var first time.Time
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 && first.IsZero() {
			first = time.Now()
		}
		sum = crc32.Update(sum, tab, buf[:n])
		read += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "sink: reading after %d bytes: %v\n", read, err)
			os.Exit(1)
		}
	}
	var took time.Duration
	if !first.IsZero() {
		took = time.Since(first)
	}
	fmt.Printf("%d %08x %d\n", read, sum, took.Nanoseconds())
}

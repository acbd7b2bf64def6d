package chars

import (
	"bytes"
	"io"
	"strings"
)

// Columns is an io.Writer that lines text up in columns by display width,
// as text/tabwriter does by runes (which shifts every column after 数据库
// or an emoji). Text is written as lines of cells, each cell ended by a
// tab; a line's last cell, not ended by one, is not part of a column.
// Tab-ended cells in the same position on adjacent lines make a column,
// as wide as its widest cell and two spaces; a line with fewer cells ends
// it. Nothing reaches the underlying writer before Flush.
type Columns struct {
	w   io.Writer
	buf bytes.Buffer
}

// NewColumns returns a Columns that writes to w.
func NewColumns(w io.Writer) *Columns {
	return &Columns{w: w}
}

// Write takes p into the table; it never fails.
func (c *Columns) Write(p []byte) (int, error) {
	return c.buf.Write(p)
}

// Flush writes the lines written so far to the underlying writer, padded,
// and returns its error.
func (c *Columns) Flush() error {
	text := c.buf.String()
	c.buf.Reset()
	end := ""
	if strings.HasSuffix(text, "\n") {
		text, end = text[:len(text)-1], "\n"
	}
	var lines [][]string
	for l := range strings.SplitSeq(text, "\n") {
		lines = append(lines, strings.Split(l, "\t"))
	}
	// widths[i][j] is the width of cell j of line i: the widest cell of
	// the run of adjacent lines that all have a tab-ended cell j.
	widths := make([][]int, len(lines))
	for j := 0; ; j++ {
		found := false
		for i := 0; i < len(lines); {
			if len(lines[i])-1 <= j {
				i++
				continue
			}
			found = true
			run, most := i, 0
			for ; i < len(lines) && len(lines[i])-1 > j; i++ {
				most = max(most, Width(lines[i][j]))
			}
			for ; run < i; run++ {
				widths[run] = append(widths[run], most+2)
			}
		}
		if !found {
			break
		}
	}
	var out strings.Builder
	for i, cells := range lines {
		if i > 0 {
			out.WriteByte('\n')
		}
		for j, cell := range cells {
			if j < len(widths[i]) {
				cell = Pad(cell, widths[i][j])
			}
			out.WriteString(cell)
		}
	}
	out.WriteString(end)
	_, err := io.WriteString(c.w, out.String())
	return err
}

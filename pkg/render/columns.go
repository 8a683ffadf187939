package render

import (
	"bufio"
	"strings"
	"unicode/utf8"
)

// span is part of a table cell and the colour it is painted in.
type span struct{ code, text string }

// cell is one table cell, painted span by span.
type cell []span

// text is an unpainted cell.
func text(s string) cell { return cell{{text: s}} }

// painted is a cell in one colour.
func painted(code, s string) cell { return cell{{code: code, text: s}} }

// then appends spans to c.
func (c cell) then(more ...span) cell { return append(c, more...) }

// width is what the cell takes on screen: its text, never its colour codes.
func (c cell) width() int {
	n := 0
	for _, s := range c {
		n += utf8.RuneCountInString(s.text)
	}
	return n
}

func (c cell) paint(st Style) string {
	var b strings.Builder
	for _, s := range c {
		if s.text != "" {
			b.WriteString(st.Paint(s.code, s.text))
		}
	}
	return b.String()
}

// columns lays out rows of cells the way text/tabwriter with a padding of
// two spaces does (every cell but a row's last is padded to its column's
// widest cell plus two), but measures the cells before painting them:
// tabwriter counts the bytes of ANSI colour codes as width, so a coloured
// cell pushed its row's columns out of line. Like cli/cli's
// tableprinter, layout first, colour last.
type columns struct {
	rows [][]cell
}

func (t *columns) add(cells ...cell) { t.rows = append(t.rows, cells) }

// flush writes the rows laid out and painted, and empties the table for
// the next block of rows. A write error stays in w, as bufio keeps it,
// for w.Flush to return.
func (t *columns) flush(w *bufio.Writer, st Style) {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r[:max(len(r)-1, 0)] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], c.width()+2)
		}
	}
	for _, r := range t.rows {
		for i, c := range r {
			w.WriteString(c.paint(st))
			if i < len(r)-1 {
				w.WriteString(strings.Repeat(" ", widths[i]-c.width()))
			}
		}
		w.WriteByte('\n')
	}
	t.rows = t.rows[:0]
}

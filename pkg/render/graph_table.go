package render

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kgc-dev/kgc/pkg/graph"
)

// GraphTable lists v's nodes one per row, kubectl style, then the
// findings. OWNERS names each owner reference as KIND/NAME; DEPENDENTS
// counts the drawn dependents.
func GraphTable(w io.Writer, v GraphView, s Style) error {
	if len(v.Nodes) == 0 {
		if _, err := io.WriteString(w, "No objects with owners or dependents.\n"); err != nil {
			return err
		}
		writeGraphFindings(w, v.Findings, s)
		return nil
	}
	in := v.uidSet()
	rows := make([][]string, 0, len(v.Nodes))
	for _, n := range v.Nodes {
		var owners []string
		for _, r := range n.Owners {
			owners = append(owners, r.Kind+"/"+r.Name)
		}
		deps := 0
		for _, d := range n.Dependents {
			if in[d.UID()] {
				deps++
			}
		}
		rows = append(rows, []string{graphOrNone(n.Identity.Namespace), n.Identity.Kind, n.Identity.Name, n.UID(),
			graphOrNone(strings.Join(owners, ",")), strconv.Itoa(deps), graphOrNone(strings.Join(graphFlags(n), ","))})
	}
	if err := graphPlainTable(w, []string{"NAMESPACE", "KIND", "NAME", "UID", "OWNERS", "DEPENDENTS", "FLAGS"}, rows); err != nil {
		return err
	}
	writeGraphFindings(w, v.Findings, s)
	return nil
}

func graphOrNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// graphFlags names a node's flags with the collector's words.
func graphFlags(n *graph.Node) []string {
	var f []string
	if n.Virtual {
		f = append(f, "virtual")
	}
	if n.BeingDeleted {
		f = append(f, "beingDeleted")
	}
	if n.DeletingDependents {
		f = append(f, "deletingDependents")
	}
	return f
}

// graphPlainTable writes a borderless, left-aligned table with three
// spaces between columns, like kubectl get, without trailing blanks.
func graphPlainTable(w io.Writer, header []string, rows [][]string) error {
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithPadding(tw.Padding{Right: "   ", Overwrite: true}),
		tablewriter.WithTrimSpace(tw.Off),
	)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

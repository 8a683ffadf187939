package audit

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// This file reads audit events exported as CSV: CloudWatch Logs Insights'
// "Export results" (@timestamp, @message: the native event, CSV-quoted)
// and a Log Analytics AKSAudit or AKSAuditAdmin query's export (a column
// per event field, see aks.go; the portal suffixes time columns with
// " [UTC]").

// csvForm says whether a first line is the header of an export kgc reads.
func csvForm(header []byte) (form, bool) {
	h := string(header)
	switch {
	case !strings.Contains(h, ","):
		return 0, false
	case strings.Contains(h, "@message"):
		return formEKSInsightsCSV, true
	case strings.Contains(h, "AuditId") && strings.Contains(h, "Verb"):
		return formAKSLogAnalytics, true
	}
	return 0, false
}

// readCSV reads a CSV export, a record a row.
func readCSV(src io.Reader, c *converter, f form, firstLine int) error {
	r := csv.NewReader(src)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return fmt.Errorf("reading its CSV header: %w", err)
	}
	cols := make([]string, len(header))
	for i, h := range header {
		cols[i] = strings.TrimSuffix(strings.TrimSpace(h), " [UTC]")
	}
	c.acc.forms |= forms(f)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			c.acc.badLine(nil, pe.StartLine+firstLine-1, notEvent("not a CSV row: "+pe.Err.Error()), false)
			continue
		}
		if err != nil {
			return err
		}
		line, _ := r.FieldPos(0) // a row read has a field
		c.csvRow(cols, rec, f, line+firstLine-1)
	}
}

// csvRow reads one row of a CSV export.
func (c *converter) csvRow(cols, rec []string, f form, line int) {
	if f == formEKSInsightsCSV {
		c.acc.insightsRows++
		for i, col := range cols {
			if col == "@message" && i < len(rec) {
				c.acc.line([]byte(rec[i]), line, false)
				return
			}
		}
		c.acc.badLine(nil, line, notEvent("its row has no @message"), false)
		return
	}
	row := make(map[string]any, len(cols))
	for i, col := range cols {
		if i < len(rec) {
			row[col] = rec[i]
		}
	}
	v, err := rowEvent(row, c.acc)
	if err != nil {
		c.acc.badLine(nil, line, err, false)
		return
	}
	c.acc.line(v, line, false)
}

package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// This file reads audit records in YAML: `gcloud logging read
// --format=yaml` (GKE LogEntries, documents separated by ---) and native
// Events a user rendered as YAML. Each document is turned into JSON and
// read as a JSON value would be.

// maxYAMLDocument bounds one YAML document.
const maxYAMLDocument = 64 << 20

// looksLikeYAML says whether a first line starts a YAML document: a
// comment, a document marker, or a key.
func looksLikeYAML(first []byte) bool {
	l := bytes.TrimSpace(first)
	switch {
	case len(l) == 0:
		return false
	case l[0] == '#' || bytes.HasPrefix(l, []byte("---")):
		return true
	}
	i := bytes.IndexByte(l, ':')
	return i > 0 && (i == len(l)-1 || l[i+1] == ' ') && !bytes.ContainsAny(l[:i], " {[\"")
}

// readYAML reads every YAML document of src.
func readYAML(src io.Reader, c *converter, firstLine int) error {
	c.yaml = true
	r := utilyaml.NewYAMLReader(bufio.NewReaderSize(src, 1<<16))
	line := firstLine
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			// What follows cannot be split into documents.
			c.acc.badLine(nil, line, notEvent("not valid YAML: "+err.Error()), !c.seen)
			return nil
		}
		if len(doc) > maxYAMLDocument {
			return fmt.Errorf("a YAML document at line %d is larger than %d MB", line, maxYAMLDocument>>20)
		}
		start := line + leadingLines(doc)
		line += bytes.Count(doc, []byte{'\n'})
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			c.acc.badLine(nil, start, notEvent("not valid YAML: "+err.Error()), !c.seen)
			c.seen = true
			continue
		}
		if string(j) == "null" {
			continue
		}
		c.value(j, start)
	}
}

// leadingLines counts the blank, comment and marker lines a document
// starts with: its line is its first content's.
func leadingLines(doc []byte) int {
	n := 0
	for len(doc) > 0 {
		i := bytes.IndexByte(doc, '\n')
		if i < 0 {
			return n
		}
		l := bytes.TrimSpace(doc[:i])
		if len(l) > 0 && l[0] != '#' && !bytes.Equal(l, []byte("---")) {
			return n
		}
		n++
		doc = doc[i+1:]
	}
	return n
}

// stripComments drops a document's comment lines, to tell a document of
// comments alone (a licence header) from one with content.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(doc, []byte{'\n'}) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("---")) {
			out = append(out, l...)
		}
	}
	return out
}

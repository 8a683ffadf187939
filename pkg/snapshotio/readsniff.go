package snapshotio

// This file recognises what an input is: gzip by its magic bytes, JSON
// by its first character, anything else YAML, and the type of untyped
// list items from the file name.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/kgc-dev/kgc/internal/jsonskip"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// fileError names the file in an error that stops reading it.
type fileError struct {
	file string
	err  error
}

func (e *fileError) Error() string { return e.file + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// readOne reads one input, captured at at: gzip is recognised by its
// magic bytes, JSON by its first character, anything else is YAML.
func (rd *reader) readOne(display, name string, at time.Time, r io.Reader) error {
	rd.files = append(rd.files, display)
	rd.fileTimes = append(rd.fileTimes, at)
	rd.curFile = int32(len(rd.files) - 1)
	if err := rd.parse(display, name, r); err != nil {
		return err
	}
	rd.readFiles++
	return nil
}

func (rd *reader) parse(display, name string, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &fileError{display, fmt.Errorf("invalid gzip data: %w", err)}
		}
		defer zr.Close()
		ra := newReadAhead(zr)
		defer ra.Close()
		br = bufio.NewReaderSize(ra, 64<<10)
		name = strings.TrimSuffix(name, ".gz")
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte{0xef, 0xbb, 0xbf}) {
		_, _ = br.Discard(3) // peeked above: they are buffered
	}
	hint := hintFromFileName(name)
	first, err := firstNonSpace(br)
	if err != nil {
		if errors.Is(err, io.EOF) {
			// Not an error here: a folder may hold an empty file among
			// dumps. An input with no object at all is (noObjects).
			rd.emptyFiles = append(rd.emptyFiles, display)
			return nil
		}
		return &fileError{display, err}
	}
	if first == '{' || first == '[' {
		if err := rd.readJSON(br, display, hint, ""); err != nil {
			return &fileError{display, err}
		}
		return nil
	}
	if err := rd.readYAML(br, display, hint); err != nil {
		return &fileError{display, err}
	}
	return nil
}

func firstNonSpace(br *bufio.Reader) (byte, error) {
	for i := 1; ; i++ {
		b, err := br.Peek(i)
		if len(b) < i {
			if err == nil {
				err = io.EOF
			}
			return 0, err
		}
		c := b[i-1]
		if !jsonskip.IsSpace(c) {
			return c, nil
		}
		if i > 4096 {
			if _, err := br.Discard(i); err != nil {
				return 0, err
			}
			i = 0
		}
	}
}

// typeHint is the type of list items that carry none: kubectl cluster-info
// dump writes typed lists whose items lack apiVersion and kind, in files
// named after the resource (pods.json).
type typeHint struct{ apiVersion, kind string }

func hintFromFileName(name string) typeHint {
	base := strings.ToLower(filepath.Base(name))
	for _, ext := range []string{".json", ".yaml", ".yml"} {
		base = strings.TrimSuffix(base, ext)
	}
	// cluster-info dump names one file replication-controllers.json.
	base = strings.ReplaceAll(base, "-", "")
	for _, r := range snapshot.BuiltinResources() {
		if r.Resource == base {
			return typeHint{r.GroupVersion(), r.Kind}
		}
	}
	return typeHint{}
}

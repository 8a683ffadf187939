package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"sync"

	sjson "github.com/segmentio/encoding/json"
)

// streamJSON writes v exactly as encodeJSON would (indented by two
// spaces, HTML left unescaped, a trailing newline), but a top-level
// struct's slice fields element by element, so that a document of a
// million nodes is never held in memory twice over as text. Values it
// cannot stream so (not a struct, embedded fields, a json.Marshaler) go
// through encodeJSON.
func streamJSON(w io.Writer, v any) error { return streamJSONWith(w, v, "", nil) }

// streamJSONWith is streamJSON with the value of the top-level field named
// field written by write, and the fields after it read only once write has
// returned: a document whose later fields depend on what write wrote (a
// post-mortem's, whose roots are built as they are written).
func streamJSONWith(w io.Writer, v any, field string, write func(*bufio.Writer) error) error {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	fields, ok := streamableFields(rv)
	if !ok {
		b, err := encodeJSON(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("{")
	n := 0
	for _, f := range fields {
		if f.omitEmpty && emptyForJSON(f.value) {
			continue
		}
		if n > 0 {
			bw.WriteString(",")
		}
		n++
		fmt.Fprintf(bw, "\n  %q: ", f.name)
		var err error
		if f.name == field && write != nil {
			err = write(bw)
		} else {
			err = streamValue(bw, f.value)
		}
		if err != nil {
			return err
		}
	}
	if n > 0 {
		bw.WriteString("\n")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// encodeJSON is the reference encoding: indented by two spaces, HTML left
// unescaped, a trailing newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type jsonField struct {
	name  string
	value reflect.Value
	// omitEmpty: the field is left out when empty, which is decided when
	// it is written, not when listed.
	omitEmpty bool
}

// streamableFields lists the fields encoding/json would write of struct
// rv, in order, or reports that rv is not a plain struct of tagged fields.
func streamableFields(rv reflect.Value) ([]jsonField, bool) {
	if rv.Kind() != reflect.Struct || rv.Type().Implements(marshalerType) || reflect.PointerTo(rv.Type()).Implements(marshalerType) {
		return nil, false
	}
	var out []jsonField
	t := rv.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil, false
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if opts != "" && opts != "omitempty" {
			return nil, false
		}
		out = append(out, jsonField{name: name, value: rv.Field(i), omitEmpty: opts == "omitempty"})
	}
	return out, true
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// emptyForJSON is encoding/json's isEmptyValue, which omitempty omits.
func emptyForJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// streamValue writes one top-level field's value at indentation level 1:
// a non-empty slice element by element, anything else whole.
func streamValue(bw *bufio.Writer, v reflect.Value) error {
	if v.Kind() != reflect.Slice || v.Len() == 0 || v.Type().Elem().Kind() == reflect.Uint8 {
		return newIndentedEncoder("  ").write(bw, v.Interface())
	}
	bw.WriteString("[")
	if err := streamElements(bw, v, 0); err != nil {
		return err
	}
	bw.WriteString("\n  ]")
	return nil
}

// streamBatch is how many elements of a big slice one goroutine encodes
// at a time; parallelMin is the length from which a slice is encoded on
// several cores (encoding/json's reflection costs more than the rest of
// writing a big document: a post-mortem of a million audit events, a
// graph of a million objects).
const (
	streamBatch = 128
	parallelMin = 4 * streamBatch
)

// streamElements writes a slice's elements, each on its own line at
// indentation level 2, separated by commas; first is the index of its
// first element in the array written (a slice handed over in parts). A
// big slice is encoded a batch per core at a time, and the batches are
// written in order.
func streamElements(bw *bufio.Writer, v reflect.Value, first int) error {
	n := v.Len()
	workers := min(runtime.GOMAXPROCS(0), 4)
	if n < parallelMin || workers < 2 {
		return encodeElements(bw, newIndentedEncoder("    "), v, first, 0, n)
	}
	encs := make([]*indentedEncoder, workers) // one encoder and buffer per core
	outs := make([]bytes.Buffer, workers)
	errs := make([]error, workers)
	for i := range encs {
		encs[i] = newIndentedEncoder("    ")
	}
	for from := 0; from < n; from += workers * streamBatch {
		var wg sync.WaitGroup
		for w := range workers {
			lo := min(from+w*streamBatch, n)
			hi := min(lo+streamBatch, n)
			outs[w].Reset()
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[w] = encodeElements(&outs[w], encs[w], v, first, lo, hi)
			}()
		}
		wg.Wait()
		for w := range workers {
			if errs[w] != nil {
				return errs[w]
			}
			if _, err := bw.Write(outs[w].Bytes()); err != nil {
				return err
			}
		}
	}
	return nil
}

// encodeElements writes elements [from, to) of a slice whose first
// element is element first of the array written, each after its separator.
func encodeElements(w io.Writer, enc *indentedEncoder, v reflect.Value, first, from, to int) error {
	for i := from; i < to; i++ {
		sep := ",\n    "
		if first+i == 0 {
			sep = "\n    "
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if err := enc.write(w, v.Index(i).Interface()); err != nil {
			return err
		}
	}
	return nil
}

// indentedEncoder encodes values indented as if they started at its
// prefix, into buffers it reuses: compact, then indented by
// indentCompact, as json.Encoder.SetIndent would but faster. The compact
// encoding is segmentio/encoding's, encoding/json's bytes in under half
// its time (TestStreamJSONMatchesTheEncoder and FuzzStreamJSONStrings
// compare the two): a post-mortem of a million events writes a hundred
// megabytes of it.
type indentedEncoder struct {
	buf    bytes.Buffer
	out    []byte
	prefix string
	enc    *sjson.Encoder
}

func newIndentedEncoder(prefix string) *indentedEncoder {
	e := &indentedEncoder{prefix: prefix}
	e.enc = sjson.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// write writes v to bw without the encoder's trailing newline.
func (e *indentedEncoder) write(bw io.Writer, v any) error {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	e.out = indentCompact(e.out[:0], bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")), e.prefix, "  ")
	_, err := bw.Write(e.out)
	return err
}

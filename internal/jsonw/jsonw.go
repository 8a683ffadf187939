// Package jsonw appends JSON values by hand, byte for byte as
// encoding/json writes them with HTML left unescaped. Writing a million
// objects through encoding/json's reflection took longer than reading
// them; the writers of kgc's biggest documents (the snapshot file, the
// Graph document) build on these instead, and their tests compare them
// with encoding/json.
package jsonw

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// AppendString appends s quoted as encoding/json quotes it with HTML left
// unescaped. Printable ASCII without quotes or backslashes is copied;
// anything else goes through encoding/json itself, so that its rules
// (control characters, invalid UTF-8, U+2028) are never restated here.
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return appendStringSlow(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendStringSlow(b []byte, s string) []byte {
	out, err := Marshal(s)
	if err != nil {
		// A string always encodes; keep the output valid regardless.
		return strconv.AppendQuote(b, s)
	}
	return append(b, out...)
}

// Marshal is json.Marshal with HTML left unescaped, without the trailing
// newline an Encoder writes.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

package snapshotio

import (
	"fmt"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// ReadListPage reads one page of an API server's JSON list response: its
// items, reduced by the same scanner as dumps and typed apiVersion and
// kind whatever they say themselves, and its continue token ("" on the
// last page).
func (x *Extractor) ReadListPage(body []byte, apiVersion, kind string) ([]snapshot.Object, string, error) {
	var out []snapshot.Object
	var cont string
	s := newScanner(body)
	s.Space()
	err := s.object(func(key []byte) error {
		switch string(key) {
		case "metadata":
			return s.object(func(k []byte) error {
				if string(k) == "continue" {
					var err error
					cont, err = s.str()
					return err
				}
				return s.Skip()
			})
		case "items":
			return s.array(func(int) error {
				o, err := x.listItem(&s, apiVersion, kind)
				if err != nil {
					return err
				}
				out = append(out, o)
				return nil
			})
		}
		return s.Skip()
	})
	if err != nil {
		return nil, "", fmt.Errorf("cannot parse the list response: %w", err)
	}
	return out, cont, nil
}

// listItem extracts the list item at the scanner's position.
func (x *Extractor) listItem(s *scanner, apiVersion, kind string) (snapshot.Object, error) {
	raw, err := s.Raw()
	if err != nil {
		return snapshot.Object{}, err
	}
	f, err := splitTop(raw)
	if err != nil {
		return snapshot.Object{}, err
	}
	f.apiVersion, f.kind = nil, nil
	o, err := x.extract(f, apiVersion, kind)
	if err != nil {
		return snapshot.Object{}, fmt.Errorf("%s %s: %w", kind, o.Metadata.Name, err)
	}
	return o, nil
}

// ReadObject reads one object of an API server's JSON GET response,
// reduced by the same scanner as dumps and typed apiVersion and kind.
func (x *Extractor) ReadObject(body []byte, apiVersion, kind string) (snapshot.Object, error) {
	f, err := splitTop(body)
	if err != nil {
		return snapshot.Object{}, fmt.Errorf("cannot parse the response: %w", err)
	}
	f.apiVersion, f.kind = nil, nil
	o, err := x.extract(f, apiVersion, kind)
	if err != nil {
		return snapshot.Object{}, fmt.Errorf("%s %s: %w", kind, o.Metadata.Name, err)
	}
	return o, nil
}

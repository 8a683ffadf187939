package snapshotio

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/url"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file reads the references an object's spec makes to other objects,
// and a webhook's client configuration, down to what facts keep.

// specRefs reads the object references at the top of a spec: fields
// named *Ref whose value is an object with a kind and a name. Other
// fields are skipped unread; of a reference only apiVersion, kind,
// namespace and name are kept.
func specRefs(raw []byte) ([]snapshot.SpecRef, error) {
	var out []snapshot.SpecRef
	s := scanner{d: raw}
	if s.ws(); s.i >= len(raw) || raw[s.i] != '{' {
		return nil, nil
	}
	err := s.object(func(key []byte) error {
		if !bytes.HasSuffix(key, []byte("Ref")) || len(key) == 3 || s.isNull() {
			return s.skip()
		}
		v, err := s.raw()
		if err != nil || len(v) == 0 || v[0] != '{' {
			return err
		}
		var r snapshot.SpecRef
		if json.Unmarshal(v, &r) != nil || r.Kind == "" || r.Name == "" {
			return nil
		}
		r.Field = "spec." + string(key)
		out = append(out, r)
		return nil
	})
	return out, err
}

// clientConfig is a webhook's clientConfig as read: of the caBundle only
// whether it holds a certificate is kept, and of a URL only the host.
type clientConfig struct {
	URL     *string
	Service *struct {
		Namespace, Name string
		Port            *int32
	}
	CABundle string
}

// caBundleState judges the caBundle (base64 of PEM, as the API writes
// it) the way client-go's rootCertPool does, and forgets it.
func (c clientConfig) caBundleState() string {
	if c.CABundle == "" {
		return snapshot.CABundleEmpty
	}
	raw, err := base64.StdEncoding.DecodeString(c.CABundle)
	if err != nil {
		return snapshot.CABundleNotPEM
	}
	found := false
	for {
		var b *pem.Block
		if b, raw = pem.Decode(raw); b == nil {
			break
		}
		found = true
		if b.Type != "CERTIFICATE" || len(b.Headers) != 0 {
			continue
		}
		if _, err := x509.ParseCertificate(b.Bytes); err == nil {
			return snapshot.CABundleValid
		}
	}
	if !found {
		return snapshot.CABundleNotPEM
	}
	return snapshot.CABundleNoCertificate
}

func (c clientConfig) reduce() (*snapshot.ServiceReference, string) {
	if s := c.Service; s != nil {
		return &snapshot.ServiceReference{Namespace: s.Namespace, Name: s.Name, Port: s.Port}, ""
	}
	if c.URL != nil {
		if u, err := url.Parse(*c.URL); err == nil && u.Host != "" {
			return nil, u.Host
		}
		return nil, "(unparsable URL)"
	}
	return nil, ""
}

// selectsSome tells whether a label selector selects anything less than
// everything.
func selectsSome(l *snapshot.LabelSelector) bool {
	return l != nil && (len(l.MatchLabels) > 0 || len(l.MatchExpressions) > 0)
}

// someSelector is the selector when it selects anything less than
// everything, else nil.
func someSelector(l *snapshot.LabelSelector) *snapshot.LabelSelector {
	if !selectsSome(l) {
		return nil
	}
	return l
}

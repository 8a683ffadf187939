package snapshotio

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// TestAdmissionFactsKeepNoSecrets reads webhook configurations, an
// APIService, an EndpointSlice and a CRD with a conversion webhook, from
// YAML and from JSON, and checks what the snapshot keeps: the services
// they call, their rules and conditions, and never a caBundle, nor a
// URL's user info, path or query.
func TestAdmissionFactsKeepNoSecrets(t *testing.T) {
	yml, err := ReadFiles([]string{"testdata/admission.yaml"}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, yml); err != nil {
		t.Fatal(err)
	}
	// The same objects as one JSON list go through the JSON reader.
	dir := t.TempDir()
	raw, err := os.ReadFile("testdata/admission.yaml")
	if err != nil {
		t.Fatal(err)
	}
	jsonList, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/admission.json", jsonList, 0o600); err != nil {
		t.Fatal(err)
	}
	js, err := ReadFiles([]string{dir + "/admission.json"}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*snapshot.Snapshot{"yaml": yml, "json": js} {
		var out bytes.Buffer
		if err := Write(&out, s); err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"U0VDUkVUQ0FCVU5ETEU", "caBundle", "token=abc", "pw@", "user:", "/path", "/convert"} {
			if bytes.Contains(out.Bytes(), []byte(secret)) {
				t.Errorf("%s: snapshot keeps %q", name, secret)
			}
		}
		by := map[string]*snapshot.Facts{}
		for _, o := range s.Objects {
			by[o.Kind] = o.Facts
		}
		wh := by["ValidatingWebhookConfiguration"].WebhookConfiguration
		if wh == nil || len(wh.Webhooks) != 2 {
			t.Fatalf("%s: webhooks = %+v", name, wh)
		}
		w0, w1 := wh.Webhooks[0], wh.Webhooks[1]
		if w0.Name != "guard.example.com" || w0.FailurePolicy != "Fail" || w0.Service == nil || w0.Service.String() != "Service/guard -n guard-system" ||
			w0.NamespaceSelector || !w0.ObjectSelector || len(w0.Rules) != 1 || w0.Rules[0].Resources[0] != "widgets" || w0.Rules[0].Operations[1] != "DELETE" {
			t.Errorf("%s: webhook 0 = %+v", name, w0)
		}
		if sel := w0.ObjectLabelSelector; w0.NamespaceLabelSelector != nil || sel == nil || sel.MatchLabels["a"] != "b" || len(sel.MatchExpressions) != 1 ||
			sel.MatchExpressions[0].Operator != "In" || strings.Join(sel.MatchExpressions[0].Values, ",") != "web,api" || w0.MatchConditions != 1 {
			t.Errorf("%s: webhook 0 selectors = %+v, %+v, %d match conditions", name, w0.NamespaceLabelSelector, sel, w0.MatchConditions)
		}
		if bytes.Contains(out.Bytes(), []byte("request.userInfo")) {
			t.Errorf("%s: snapshot keeps a match condition's expression", name)
		}
		if w0.CAValidity != snapshot.CABundleNotPEM || w1.CAValidity != snapshot.CABundleNotPEM {
			t.Errorf("%s: webhooks' caValidity = %q, %q, want %q for a caBundle that is no PEM", name, w0.CAValidity, w1.CAValidity, snapshot.CABundleNotPEM)
		}
		if w1.URLHost != "hooks.example.net:8443" || w1.Service != nil {
			t.Errorf("%s: webhook 1 = %+v, want only the URL's host", name, w1)
		}
		a := by["APIService"].APIService
		if a == nil || a.Service == nil || a.Service.String() != "Service/metrics-server -n monitoring" || a.Available == nil || a.Available.Reason != "ServiceNotFound" || a.Available.Status != "False" {
			t.Errorf("%s: APIService facts = %+v", name, a)
		}
		if e := by["EndpointSlice"].EndpointSlice; e == nil || e.Endpoints != 2 || e.Ready != 1 {
			t.Errorf("%s: EndpointSlice facts = %+v, want 2 endpoints, 1 ready", name, e)
		}
		c := by["CustomResourceDefinition"].CRD
		if c == nil || c.Conversion == nil || c.Conversion.Strategy != "Webhook" || c.Conversion.Service == nil || c.Conversion.Service.String() != "Service/widget-conversion -n widget-system" {
			t.Errorf("%s: CRD conversion = %+v", name, c)
		}
		if c != nil && c.Conversion != nil && c.Conversion.CAValidity != snapshot.CABundleNotPEM {
			t.Errorf("%s: CRD caValidity = %q, want %q for a caBundle that is no PEM", name, c.Conversion.CAValidity, snapshot.CABundleNotPEM)
		}
		if c == nil || strings.Join(c.StoredVersions, ",") != "v1beta1,v1" || c.Terminating == nil || c.Terminating.Reason != "InstanceDeletionFailed" || !c.Established {
			t.Errorf("%s: CRD storedVersions and Terminating condition = %+v", name, c)
		}
	}
}

// TestCAValidity judges caBundles as the API server's client does,
// keeping only the verdict.
func TestCAValidity(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook"}, NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	for _, c := range []struct{ bundle, want string }{
		{"", snapshot.CABundleEmpty},
		{b64(certPEM), snapshot.CABundleValid},
		{b64(append(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte{1}}), certPEM...)), snapshot.CABundleValid},
		{b64([]byte("not a certificate")), snapshot.CABundleNotPEM},
		{"%%% not base64", snapshot.CABundleNotPEM},
		{b64(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("garbage")})), snapshot.CABundleNoCertificate},
		{b64(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte{1}})), snapshot.CABundleNoCertificate},
	} {
		if got := (clientConfig{CABundle: c.bundle}).caBundleState(); got != c.want {
			t.Errorf("caBundle %.30q: %s, want %s", c.bundle, got, c.want)
		}
	}
}

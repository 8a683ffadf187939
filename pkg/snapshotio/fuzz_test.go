package snapshotio

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	kjson "sigs.k8s.io/json"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// fuzzRead checks what must hold for any input: no panic, bounded work,
// and a snapshot that survives Write and a second read unchanged.
func fuzzRead(t *testing.T, data []byte) {
	s, err := ReadFiles([]string{"-"}, bytes.NewReader(data), ReadOptions{MaxFileBytes: 1 << 20})
	if err != nil {
		return
	}
	uids := map[string]bool{}
	for _, o := range s.Objects {
		if o.Metadata.UID == "" {
			t.Fatalf("object without uid kept: %+v", o)
		}
		if uids[o.Metadata.UID] {
			t.Fatalf("duplicate uid %q kept", o.Metadata.UID)
		}
		uids[o.Metadata.UID] = true
	}
	var out bytes.Buffer
	if err := Write(&out, s); err != nil {
		t.Fatalf("write: %v", err)
	}
	back, err := ReadFiles([]string{"-"}, bytes.NewReader(out.Bytes()), ReadOptions{})
	if err != nil {
		t.Fatalf("reading back what was written: %v\n%s", err, out.Bytes())
	}
	back.CapturedAt, back.Source = s.CapturedAt, s.Source
	var again bytes.Buffer
	if err := Write(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Fatalf("round trip changed the snapshot:\n%s\n%s", out.Bytes(), again.Bytes())
	}
}

// differential compares the hand-written scanner with the decoder the API
// server uses (case-sensitive encoding/json) on a single valid object: both
// must see the same metadata, or kgc would show objects differently from
// the cluster.
func differential(t *testing.T, data []byte) {
	if !json.Valid(data) || bytes.IndexByte(bytes.TrimSpace(data), '{') != 0 {
		return
	}
	var ref struct {
		APIVersion string              `json:"apiVersion"`
		Kind       string              `json:"kind"`
		Metadata   snapshot.ObjectMeta `json:"metadata"`
		Items      any                 `json:"items"`
		Objects    any                 `json:"objects"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &ref); err != nil || ref.Items != nil || ref.Objects != nil || ref.Kind == "Snapshot" {
		return
	}
	s, err := ReadFiles([]string{"-"}, bytes.NewReader(data), ReadOptions{})
	if ref.Metadata.UID == "" {
		// A template, not cluster state: kgc keeps nothing of it, and an
		// input of nothing else is an error (no objects).
		return
	}
	if err != nil {
		// kgc may refuse an object whose types the API server would also
		// refuse (the reference decodes into looser Go types); it must say so.
		if strings.Contains(err.Error(), "every object was skipped") {
			return
		}
		t.Fatalf("the API server's decoder accepts it, kgc fails: %v", err)
	}
	if len(s.Objects) != 1 {
		// kgc may refuse an object whose types the API server would also
		// refuse (the reference decodes into looser Go types); it must say so.
		if len(s.Warnings) == 0 {
			t.Fatalf("object silently dropped")
		}
		return
	}
	got := s.Objects[0]
	if got.APIVersion != ref.APIVersion || got.Kind != ref.Kind {
		t.Fatalf("type: got %s %s, want %s %s", got.APIVersion, got.Kind, ref.APIVersion, ref.Kind)
	}
	g, w := got.Metadata, ref.Metadata
	// kgc reads the manager from managedFields, which the reference does
	// not decode; TestReadKeepsTheOldestManager and the protobuf reader's
	// differential test pin it.
	g.Manager, w.Manager = "", ""
	for _, p := range []struct{ a, b **time.Time }{{&g.CreationTimestamp, &w.CreationTimestamp}, {&g.DeletionTimestamp, &w.DeletionTimestamp}} {
		if (*p.a == nil) != (*p.b == nil) || (*p.a != nil && !(*p.a).Equal(**p.b)) {
			t.Fatalf("timestamp: got %v, want %v", *p.a, *p.b)
		}
		*p.a, *p.b = nil, nil
	}
	if len(g.Labels) == 0 && len(w.Labels) == 0 {
		g.Labels, w.Labels = nil, nil
	}
	if len(g.Finalizers) == 0 && len(w.Finalizers) == 0 {
		g.Finalizers, w.Finalizers = nil, nil
	}
	if len(g.OwnerReferences) == 0 && len(w.OwnerReferences) == 0 {
		g.OwnerReferences, w.OwnerReferences = nil, nil
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("metadata differs from the API server's decoding:\ngot  %+v\nwant %+v", g, w)
	}
}

func seed(f *testing.F, files ...string) {
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

func FuzzReadJSON(f *testing.F) {
	seed(f, "testdata/cluster-info-dump/nodes.json", "testdata/cluster-info-dump/shop/pods.json", "testdata/cluster-info-dump/shop/replicasets.json")
	for _, s := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"n","uid":"u","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"x","controller":true}],"labels":{"a":"b"},"annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"nodeName":"n1","volumes":[{"name":"v","ephemeral":{}}]},"status":{"phase":"Running"}}`,
		`{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"1","creationTimestamp":"2025-01-01T00:00:00Z","finalizers":["a\u00e9"]}}],"kind":"List"}`,
		`[{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s\"q","uid":"2","generation":3,"deletionGracePeriodSeconds":0}}]`,
		`{"apiVersion":"kgc.dev/v1alpha1","kind":"Snapshot","capturedAt":"2026-01-02T03:04:05Z","source":{"type":"live"},"resources":[],"objects":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n","uid":"3"},"facts":{"node":{"ready":"True"}}}]}`,
		`{"kind":"List","items":[null,1,"x",{"metadata":null}]}`,
		`{"kind":"List","items":[{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"m","uid":"w"},"webhooks":[{"name":"a","clientConfig":{"url":"https://h:1/p","caBundle":"eA=="},"rules":[{"operations":["*"],"resources":["*"]}],"objectSelector":{"matchExpressions":[{}]}}]},` +
			`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"e","namespace":"n","uid":"e"},"endpoints":[{"conditions":{"ready":null}},{}]},` +
			`{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.x.io","uid":"a"},"spec":{"service":{"name":"s"}},"status":{"conditions":[{"type":"Available","status":"False"}]}},` +
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"w.x","uid":"c"},"spec":{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"url":"::"}}}}}]}`,
		`{"kind":"List","items":[{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"p","uid":"p"},"spec":{"paramKind":{"kind":"K"},"matchConstraints":{"resourceRules":[{"operations":["UPDATE"],"resourceNames":["x"]}]},"validations":[{"expression":"1"}]}},` +
			`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"b","uid":"b"},"spec":{"policyName":"p","validationActions":["Deny"],"paramRef":{"selector":{}}}},` +
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r","uid":"r"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"b"}}]}}]}`,
		`{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n","uid":"1"}}]}` + "\n==== START logs for container a of pod x/y ====\nlog\n==== END logs for container a of pod x/y ====\n",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"na\u006de":"esc","uid":"u","labels":{"a":"1","a":"2"},"finalizers":["x"],"finalizers":["y"],"creationTimestamp":"2025-01-01T00:00:00.5+02:00"}}`,
		`{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"c","uid":"i","annotations":{"ingressclass.kubernetes.io/is-default-class":"true"},"managedFields":[{"manager":"b","time":"2026-01-01T00:00:00Z"},{"manager":"a","subresource":"status"},{"manager":"","time":"1"},{}]},"spec":{"controller":"x.io/c"}}`,
		`{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"s","uid":"s"},"provisioner":"ebs.csi.aws.com"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data)
		differential(t, data)
	})
}

func FuzzReadYAML(f *testing.F) {
	seed(f, "testdata/kubectl-list.yaml", "testdata/admission.yaml")
	for _, s := range []string{
		"apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: n, uid: u}\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: s, uid: v}}\n",
		"a: &a [x, x]\nb: [*a, *a]\n",
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: w.x, uid: c}\nspec: {group: x, names: {kind: W, plural: w}, scope: Cluster, versions: [{name: v1, served: true}]}\n",
		"--- \n...\n",
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    uid: u1\n    labels: {x: y}\n# c\n- metadata: {name: b, uid: u2}\nkind: ConfigMapList\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data)
		streamedLikeWhole(t, data)
	})
}

// streamedLikeWhole reads YAML whole and item by item: where both succeed
// they must find the same objects.
func streamedLikeWhole(t *testing.T, data []byte) {
	whole, err := ReadFiles([]string{"-"}, bytes.NewReader(data), ReadOptions{MaxFileBytes: 1 << 20})
	if err != nil {
		return
	}
	streamed, err := ReadFiles([]string{"-"}, bytes.NewReader(data), ReadOptions{MaxFileBytes: 1 << 20, yamlStreamAt: 1})
	if err != nil {
		return
	}
	streamed.CapturedAt = whole.CapturedAt // stdin is stamped with the time it was read
	var a, b bytes.Buffer
	if err := Write(&a, whole); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, streamed); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatalf("streamed YAML differs from whole YAML:\n%s\nvs\n%s", b.String(), a.String())
	}
}

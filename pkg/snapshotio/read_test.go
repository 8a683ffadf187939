package snapshotio

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/internal/golden"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

var fixedTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// writeFiles creates files (path → content) in a temp dir and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadKubectlListGolden(t *testing.T) {
	s, err := ReadFiles([]string{"testdata/kubectl-list.yaml"}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("unexpected warnings: %q", testobj.Warnings(s))
	}
	s.CapturedAt = fixedTime
	var buf bytes.Buffer
	if err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2", "s3cr3t", "managedFields", "annotations", "last-applied", "config.mirror", "containers"} {
		if bytes.Contains(buf.Bytes(), []byte(secret)) {
			t.Errorf("snapshot leaks %q", secret)
		}
	}
	golden.Assert(t, filepath.Join("testdata", "kubectl-list.golden"), buf.Bytes())

	// What a user of the snapshot sees through the catalog.
	cat := s.Catalog()
	w, err := cat.Resolve("wd")
	if err != nil {
		t.Fatal(err)
	}
	if w.QualifiedName() != "widgets.example.com" || w.Version != "v1" || strings.Join(w.Versions, ",") != "v1,v1beta1" || !w.Listed || w.Count != 1 {
		t.Errorf("CRD catalog entry = %+v, want widgets.example.com preferred v1, versions v1,v1beta1, listed, 1 object", w)
	}
	if _, ok := cat.ForAPIVersionKind("example.com/v1alpha1", "Widget"); ok {
		t.Error("example.com/v1alpha1 Widget resolved, but v1alpha1 is not served")
	}
	cm, _ := cat.ForGroupKind("", "ConfigMap")
	if cm.Listed {
		t.Error("configmaps listed although the dump has none: its missing owners would look dangling instead of unknown")
	}
}

func TestReadFormats(t *testing.T) {
	pod := func(name, uid string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","namespace":"ns","uid":"` + uid + `"}}`
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write([]byte(`{"apiVersion":"v1","kind":"List","items":[` + pod("a", "u1") + `]}`)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		file    string
		content string
		want    []string
	}{
		{"single JSON object", "o.json", pod("a", "u1"), []string{"v1 Pod/a -n ns"}},
		{"JSON List", "l.json", `{"apiVersion":"v1","items":[` + pod("b", "u2") + `,` + pod("a", "u1") + `],"kind":"List","metadata":{}}`, []string{"v1 Pod/a -n ns", "v1 Pod/b -n ns"}},
		{"typed List, items without type", "x.json", `{"kind":"ConfigMapList","apiVersion":"v1","items":[{"metadata":{"name":"c","namespace":"ns","uid":"u3"}}]}`, []string{"v1 ConfigMap/c -n ns"}},
		{"typed List, kind after the items", "x.json", `{"apiVersion":"apps/v1","items":[{"metadata":{"name":"d","namespace":"ns","uid":"u4"}}],"kind":"DeploymentList"}`, []string{"apps/v1 Deployment/d -n ns"}},
		{"concatenated JSON values", "c.json", pod("a", "u1") + "\n" + pod("b", "u2"), []string{"v1 Pod/a -n ns", "v1 Pod/b -n ns"}},
		{"top-level JSON array", "a.json", `[` + pod("a", "u1") + `]`, []string{"v1 Pod/a -n ns"}},
		{"gzip by magic bytes, whatever the name", "dump.data", gz.String(), []string{"v1 Pod/a -n ns"}},
		{"multi-document YAML", "m.yaml", "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ns, uid: u1}\n---\n# comment only\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns, uid: u5}\n", []string{"v1 Pod/a -n ns", "v1 Secret/s -n ns"}},
		{"YAML List", "l.yml", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a, namespace: ns, uid: u1}\n", []string{"v1 Pod/a -n ns"}},
		{"byte order mark", "bom.json", "\xef\xbb\xbf" + pod("a", "u1"), []string{"v1 Pod/a -n ns"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{tt.file: tt.content})
			s, err := ReadFiles([]string{filepath.Join(dir, tt.file)}, nil, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(testobj.Refs(s), "; "); got != strings.Join(tt.want, "; ") {
				t.Errorf("objects = %q, want %q", got, strings.Join(tt.want, "; "))
			}
			if len(s.Warnings) != 0 {
				t.Errorf("unexpected warnings %q", testobj.Warnings(s))
			}
			if s.Source.Type != "files" {
				t.Errorf("source type %q, want files", s.Source.Type)
			}
		})
	}
}

func TestReadStdin(t *testing.T) {
	s, err := ReadFiles([]string{"-"}, strings.NewReader("apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ns, uid: u1}\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(testobj.Refs(s), ";"); got != "v1 Pod/a -n ns" {
		t.Errorf("objects = %q", got)
	}
}

// Standard input can be read once: a second -f - would read it empty and
// silently add nothing, so it is refused before anything is read.
func TestReadStdinTwiceIsAnError(t *testing.T) {
	stdin := strings.NewReader("apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ns, uid: u1}\n")
	_, err := ReadFiles([]string{"-", "testdata/kubectl-list.yaml", "-"}, stdin, ReadOptions{})
	want := "-f - is given more than once: standard input can be read only once; give -f - once"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
	if stdin.Len() == 0 {
		t.Error("standard input was read before the arguments were checked")
	}
}

func TestReadClusterInfoDump(t *testing.T) {
	s, err := ReadFiles([]string{"testdata/cluster-info-dump"}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "v1 Node/node-1; v1 Pod/web-1 -n shop; apps/v1 ReplicaSet/web-6d4b -n shop"
	if got := strings.Join(testobj.Refs(s), "; "); got != want {
		t.Errorf("objects = %q, want %q", got, want)
	}
	// logs.txt and README.md are skipped silently, nodes.csv is reported.
	wantW := "ignored testdata/cluster-info-dump/nodes.csv, which is neither JSON nor YAML"
	if got := strings.Join(testobj.Warnings(s), "\n"); got != wantW {
		t.Errorf("warnings = %q, want %q", got, wantW)
	}
	pod := s.Objects[1]
	if pod.Facts == nil || pod.Facts.Pod == nil || pod.Facts.Pod.NodeName != "node-1" || pod.Facts.Pod.Phase != "Pending" {
		t.Errorf("pod facts from a typed list = %+v", pod.Facts)
	}
	if n := s.Objects[0].Facts; n == nil || n.Node == nil || n.Node.Ready != "True" {
		t.Errorf("node facts = %+v", n)
	}
	// cluster-info dump writes an empty EventList for a namespace without
	// events: the type was listed and is empty, so an absent owner of that
	// type is gone, not unknown. A type with no list in the dump is not.
	cat := s.Catalog()
	if events, _ := cat.ForGroupKind("", "Event"); !events.Listed || events.Count != 0 {
		t.Errorf("events = %+v, want listed (the dump holds an empty EventList), 0 objects", events)
	}
	if deploys, _ := cat.ForGroupKind("apps", "Deployment"); deploys.Listed {
		t.Errorf("deployments = %+v, want not listed: the dump has no DeploymentList", deploys)
	}
}

// An input with no object is an error naming the input, not an empty
// cluster: analysing it would answer "nothing here" about a cluster kgc
// never saw.
func TestReadNoObjects(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		arg   string // relative to the folder; "" reads the folder
		want  string
	}{
		{"empty file", map[string]string{"e.yaml": ""}, "e.yaml", "no objects in DIR/e.yaml: the file is empty"},
		{"blank file", map[string]string{"e.json": "\n\n  \n"}, "e.json", "no objects in DIR/e.json: the file is empty"},
		{"folder of empty files", map[string]string{"a.yaml": "", "b.json": ""}, "", "no objects in DIR: every file is empty"},
		{"typed empty lists", map[string]string{"rs.json": `{"kind":"ReplicaSetList","apiVersion":"apps/v1","items":[]}`,
			"pods.json": `{"kind":"PodList","apiVersion":"v1","items":[]}`}, "", "no objects in DIR: it holds only empty lists (PodList, ReplicaSetList)"},
		{"list with null items", map[string]string{"n.json": `{"apiVersion":"v1","kind":"List","items":null}`}, "n.json", "no objects in DIR/n.json: it holds no Kubernetes objects"},
		{"templates only", map[string]string{"t.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: tmpl}\n"}, "t.yaml",
			"no objects in DIR/t.yaml: every object was skipped, such as DIR/t.yaml: Pod/tmpl: skipped: no metadata.uid; templates are not cluster state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			_, err := ReadFiles([]string{filepath.Join(dir, tt.arg)}, nil, ReadOptions{})
			want := strings.ReplaceAll(tt.want, "DIR", dir) + "; give a dump of the cluster (kubectl get -A -o yaml) or a kgc snapshot"
			if err == nil || err.Error() != want {
				t.Errorf("error = %v\nwant    %s", err, want)
			}
		})
	}
	_, err := ReadFiles([]string{"-"}, strings.NewReader(""), ReadOptions{})
	if want := "no objects in standard input: the file is empty"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("empty stdin: error = %v, want %s…", err, want)
	}
}

// An empty file next to files with objects is read as nothing, with a
// warning naming it: the user may have meant another file.
func TestReadEmptyFileAmongOthers(t *testing.T) {
	dir := writeFiles(t, map[string]string{"empty.yaml": "", "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ns, uid: u1}\n"})
	s, err := ReadFiles([]string{filepath.Join(dir, "pod.yaml"), filepath.Join(dir, "empty.yaml")}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(testobj.Warnings(s), "\n"), filepath.Join(dir, "empty.yaml")+": empty file, holds no objects"; got != want {
		t.Errorf("warnings = %q, want %q", got, want)
	}
}

func TestReadFacts(t *testing.T) {
	s, err := ReadFiles([]string{"testdata/kubectl-list.yaml"}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*snapshot.Object{}
	for i := range s.Objects {
		byName[s.Objects[i].Kind+"/"+s.Objects[i].Metadata.Name] = &s.Objects[i]
	}
	p := byName["Pod/web-6d4b-x1"].Facts.Pod
	if p.NodeName != "node-1" || p.Phase != "Running" || p.TerminationGracePeriodSeconds == nil || *p.TerminationGracePeriodSeconds != 45 ||
		strings.Join(p.Claims, ",") != "data-web" || strings.Join(p.EphemeralClaims, ",") != "web-6d4b-x1-scratch" || !p.Mirror {
		t.Errorf("pod facts = %+v", p)
	}
	ns := byName["Namespace/shop"].Facts.Namespace
	if ns.Phase != "Terminating" || strings.Join(ns.SpecFinalizers, ",") != "kubernetes" || len(ns.Conditions) != 1 || ns.Conditions[0].Reason != "SomeResourcesRemain" {
		t.Errorf("namespace facts = %+v", ns)
	}
	n := byName["Node/node-1"].Facts.Node
	if n.Ready != "Unknown" || strings.Join(n.Taints, ",") != "node.kubernetes.io/unreachable:NoExecute" {
		t.Errorf("node facts = %+v", n)
	}
	if f := byName["PersistentVolumeClaim/data-web"].Facts.PVC; f.Phase != "Bound" || f.VolumeName != "pv-1" {
		t.Errorf("pvc facts = %+v", f)
	}
	if f := byName["PersistentVolume/pv-1"].Facts.PV; f.Phase != "Bound" || f.ReclaimPolicy != "Delete" || f.ClaimRef == nil || f.ClaimRef.UID != "0e-pvc-data" {
		t.Errorf("pv facts = %+v", f)
	}
	if f := byName["Service/web"].Facts.Service; f.Type != "LoadBalancer" || f.LoadBalancerClass != "example.com/lb" {
		t.Errorf("service facts = %+v", f)
	}
	if f := byName["Job/migrate"].Facts.Job; !f.Finished {
		t.Errorf("job facts = %+v, want finished", f)
	}
	c := byName["CustomResourceDefinition/widgets.example.com"].Facts.CRD
	if c.Group != "example.com" || c.Kind != "Widget" || c.Plural != "widgets" || c.Scope != "Namespaced" || !c.Established || len(c.Versions) != 3 {
		t.Errorf("crd facts = %+v", c)
	}
	if f := byName["Deployment/web"].Facts; f == nil || f.Workload == nil || *f.Workload.Replicas != 1 || f.Workload.Revision != "2" {
		t.Errorf("deployment facts = %+v, want the workload's replicas and revision (and nothing of its template)", f)
	}
	if f := byName["ReplicaSet/web-6d4b"].Facts; f != nil {
		t.Errorf("a ReplicaSet without spec has facts %+v", f)
	}
	rs := byName["ReplicaSet/web-6d4b"].Metadata.OwnerReferences[0]
	if !rs.IsController() || !rs.Blocking() {
		t.Errorf("owner reference = %+v", rs)
	}
	pr := byName["Pod/web-6d4b-x1"].Metadata.OwnerReferences[0]
	if pr.BlockOwnerDeletion == nil || *pr.BlockOwnerDeletion {
		t.Errorf("blockOwnerDeletion: false must stay false, not unset: %+v", pr)
	}
}

func TestReadBadInput(t *testing.T) {
	obj := func(kind, name, uid, extra string) string {
		return `{"apiVersion":"v1","kind":"` + kind + `","metadata":{"name":"` + name + `","namespace":"ns","uid":"` + uid + `"` + extra + `}}`
	}
	tests := []struct {
		name     string
		files    map[string]string
		opts     ReadOptions
		objects  []string
		warnings []string
		dups     int
	}{
		{
			name:     "object without uid is a template, not cluster state",
			files:    map[string]string{"a.json": `{"kind":"List","apiVersion":"v1","items":[` + obj("Pod", "tmpl", "", "") + `,` + obj("Pod", "real", "u1", "") + `]}`},
			objects:  []string{"v1 Pod/real -n ns"},
			warnings: []string{"a.json: Pod/tmpl -n ns: skipped: no metadata.uid; templates are not cluster state"},
		},
		{
			name:     "nameless object is named by its position",
			files:    map[string]string{"a.json": `{"kind":"List","apiVersion":"v1","items":[{"kind":"Pod","apiVersion":"v1","metadata":{}},` + obj("Pod", "real", "u1", "") + `]}`},
			objects:  []string{"v1 Pod/real -n ns"},
			warnings: []string{"a.json: items[0]: skipped: no metadata.uid; templates are not cluster state"},
		},
		{
			name:     "two objects sharing a uid: the higher resourceVersion is kept, both are named",
			files:    map[string]string{"a.json": obj("Pod", "one", "dup", `,"resourceVersion":"9"`), "b.json": obj("Pod", "two", "dup", `,"resourceVersion":"12"`)},
			objects:  []string{"v1 Pod/two -n ns"},
			warnings: []string{"a.json: Pod/one -n ns: duplicate uid dup: Pod/two -n ns in b.json has it too; kept that one (the higher resourceVersion, else the later capture, else the first read)"},
			dups:     1,
		},
		{
			name:     "owner reference missing fields is kept",
			files:    map[string]string{"a.json": obj("Pod", "p", "u1", `,"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"r"},{"kind":"ReplicaSet","name":"rs"}]`)},
			objects:  []string{"v1 Pod/p -n ns"},
			warnings: []string{"a.json: Pod/p -n ns: ownerReferences[1] has no apiVersion, uid; kept, the garbage collector cannot resolve it"},
		},
		{
			name:     "unknown kind is kept with a warning",
			files:    map[string]string{"a.json": `[{"apiVersion":"acme.io/v1","kind":"Gadget","metadata":{"name":"g","namespace":"ns","uid":"g1"}},{"apiVersion":"acme.io/v1","kind":"Gadget","metadata":{"name":"h","namespace":"ns","uid":"g2"}}]`},
			objects:  []string{"acme.io/v1 Gadget/g -n ns", "acme.io/v1 Gadget/h -n ns"},
			warnings: []string{"a.json: Gadget/g -n ns: kind Gadget of acme.io/v1 is not in the resource catalog (no CRD for it in the input); kept, but its type is unknown (2 objects of this kind)"},
		},
		{
			name:     "wrongly typed metadata field skips the object",
			files:    map[string]string{"a.json": `[` + obj("Pod", "p", "u1", `,"finalizers":"oops"`) + `,` + obj("Pod", "q", "u2", "") + `]`},
			objects:  []string{"v1 Pod/q -n ns"},
			warnings: []string{"a.json: Pod/p -n ns: skipped: metadata.finalizers: expected an array"},
		},
		{
			name:     "malformed file in a folder is a warning, the rest is read",
			files:    map[string]string{"a.json": `{"kind":"List","items":[` + obj("Pod", "p", "u1", "") + `,{"metadata":}]}`, "b.yaml": "kind: Pod\napiVersion: v1\nmetadata: {name: q, namespace: ns, uid: u2}\n"},
			objects:  []string{"v1 Pod/p -n ns", "v1 Pod/q -n ns"},
			warnings: []string{"a.json: skipped the rest of the file: items[1]: invalid JSON at byte 121: invalid character '}' looking for a value (1 objects read before the error were kept)"},
		},
		{
			name:     "YAML syntax error in a folder names the document",
			files:    map[string]string{"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\n---\nkind: [unclosed\n", "b.json": obj("Pod", "q", "u2", "")},
			objects:  []string{"v1 Pod/p -n ns", "v1 Pod/q -n ns"},
			warnings: []string{"a.yaml: skipped the rest of the file: document 2 (from line 5): invalid YAML: yaml: line 1: did not find expected ',' or ']' (1 objects read before the error were kept)"},
		},
		{
			name:     "list item that is not an object",
			files:    map[string]string{"a.json": `{"kind":"List","items":[null,` + obj("Pod", "p", "u1", "") + `]}`},
			objects:  []string{"v1 Pod/p -n ns"},
			warnings: []string{"a.json: items[0]: skipped: not an object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			s, err := ReadFiles([]string{dir}, nil, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(testobj.Refs(s), "; "); got != strings.Join(tt.objects, "; ") {
				t.Errorf("objects = %q, want %q", got, strings.Join(tt.objects, "; "))
			}
			var ws []string
			for _, w := range testobj.Warnings(s) {
				ws = append(ws, strings.ReplaceAll(w, dir+"/", ""))
			}
			if got := strings.Join(ws, "\n"); got != strings.Join(tt.warnings, "\n") {
				t.Errorf("warnings =\n%s\nwant\n%s", got, strings.Join(tt.warnings, "\n"))
			}
			if len(s.Duplicates) != tt.dups {
				t.Errorf("%d duplicates recorded, want %d", len(s.Duplicates), tt.dups)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	aliasBomb := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n" +
		"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n" +
		"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n" +
		"h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
	tests := []struct {
		name    string
		file    string
		content string
		opts    ReadOptions
		want    string
	}{
		{"malformed JSON names file and offset", "bad.json", `{"kind":"List","items":[{"metadata":{"name":"x"}]}`, ReadOptions{}, "bad.json: items[0]: invalid JSON at byte 48: expected ',' or '}' after object value"},
		{"truncated JSON", "cut.json", `{"kind":"List","items":[{"metadata":{"name":"x"`, ReadOptions{}, "cut.json: items[0]: invalid JSON at byte 24: unexpected end of input inside a list item"},
		{"malformed YAML names the document", "bad.yaml", "a: 1\n---\nb: [\n", ReadOptions{}, "bad.yaml: document 2 (from line 3): invalid YAML: yaml: line 1: did not find expected node content"},
		{"YAML alias bomb is refused", "bomb.yaml", aliasBomb, ReadOptions{}, "bomb.yaml: document 1: invalid YAML: yaml: document contains excessive aliasing"},
		{"YAML over the size limit", "big.yaml", "kind: Pod\n" + strings.Repeat("# padding\n", 200), ReadOptions{MaxFileBytes: 1000}, "big.yaml: document 1: larger than the limit of 1000 bytes; use JSON (kubectl get -o json), which kgc streams, or raise the limit"},
		{"JSON object over the size limit", "big.json", `{"kind":"List","items":[{"metadata":{"name":"` + strings.Repeat("x", 3000) + `"}}]}`, ReadOptions{MaxFileBytes: 1000}, "big.json: a single object or document is larger than the limit of 1000 bytes"},
		{"scalar document", "s.yaml", "just text\n", ReadOptions{}, "s.yaml: document 1: not a Kubernetes object or list"},
		{"deep nesting", "deep.json", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), ReadOptions{}, "deep.json: invalid JSON at byte 10001: exceeded max nesting depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{tt.file: tt.content})
			_, err := ReadFiles([]string{filepath.Join(dir, tt.file)}, nil, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if got := strings.ReplaceAll(err.Error(), dir+"/", ""); got != tt.want {
				t.Errorf("error = %q\nwant    %q", got, tt.want)
			}
		})
	}
}

func TestReadNothing(t *testing.T) {
	dir := writeFiles(t, map[string]string{"notes.txt": "hello"})
	_, err := ReadFiles([]string{dir}, nil, ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "nothing could be read from") {
		t.Errorf("error = %v, want nothing could be read", err)
	}
	bad := writeFiles(t, map[string]string{"a.json": "{broken", "b.yaml": "a: [\n"})
	_, err = ReadFiles([]string{bad}, nil, ReadOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "nothing could be read from "+bad+": "+bad+"/a.json: skipped the rest of the file: invalid JSON") {
		t.Errorf("folder of malformed files: error = %v", err)
	}
	_, err = ReadFiles([]string{filepath.Join(dir, "missing.json")}, nil, ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("error = %v, want it to name missing.json", err)
	}
	_, err = ReadFiles(nil, nil, ReadOptions{})
	if err == nil {
		t.Error("no error for no input")
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	s, err := ReadFiles([]string{"testdata/kubectl-list.yaml"}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.CapturedAt = fixedTime
	s.Source = snapshot.Source{Type: "live", Server: "https://k.example:6443", ServerVersion: "v1.36.3", Context: "prod"}
	s.Resources[0].Error = "forbidden"
	dir := t.TempDir()
	for _, name := range []string{"s.json", "s.json.gz"} {
		path := filepath.Join(dir, name)
		if err := WriteFile(path, s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadFiles([]string{path}, nil, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		mustWrite(t, &a, s)
		back.Source.Type, back.Source.Files = "live", nil
		mustWrite(t, &b, back)
		if a.String() != b.String() {
			t.Errorf("%s: reading a written snapshot changed it:\n%s\nvs\n%s", name, a.String(), b.String())
		}
	}
}

func TestWriteDeterministic(t *testing.T) {
	s, err := ReadFiles([]string{"testdata/kubectl-list.yaml"}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	mustWrite(t, &a, s)
	// Shuffle the input order: the document must not change.
	for i, j := 0, len(s.Objects)-1; i < j; i, j = i+1, j-1 {
		s.Objects[i], s.Objects[j] = s.Objects[j], s.Objects[i]
		s.Resources[i], s.Resources[j] = s.Resources[j], s.Resources[i]
	}
	mustWrite(t, &b, s)
	if a.String() != b.String() {
		t.Error("Write depends on the order of objects or resources")
	}
}

func TestReadLiveSnapshotKeepsDiscoveryCatalog(t *testing.T) {
	live := &snapshot.Snapshot{APIVersion: snapshot.APIVersion, Kind: "Snapshot", CapturedAt: fixedTime,
		Source:          snapshot.Source{Type: "live", Server: "https://k.example:6443", ServerVersion: "v1.36.3"},
		Resources:       []snapshot.Resource{{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}, Versions: []string{"v1"}, Listed: true}},
		DiscoveryErrors: []snapshot.DiscoveryError{{GroupVersion: "metrics.k8s.io/v1beta1", Error: "503"}},
		Objects:         []snapshot.Object{{APIVersion: "v1", Kind: "Pod", Metadata: snapshot.ObjectMeta{Name: "p", Namespace: "n", UID: "u1"}}},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "live.json")
	if err := WriteFile(path, live); err != nil {
		t.Fatal(err)
	}
	s, err := ReadFiles([]string{path}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Source.Server != "https://k.example:6443" || !s.CapturedAt.Equal(fixedTime) {
		t.Errorf("source = %+v, captured %v", s.Source, s.CapturedAt)
	}
	if len(s.Resources) != 1 {
		t.Errorf("catalog of a live snapshot grew to %d entries: a kind discovery lacks must stay unserved", len(s.Resources))
	}
	if len(s.DiscoveryErrors) != 1 || s.DiscoveryErrors[0].GroupVersion != "metrics.k8s.io/v1beta1" {
		t.Errorf("discovery errors = %+v", s.DiscoveryErrors)
	}

	// Mixed with a plain dump, discovery no longer describes everything.
	dump := writeFiles(t, map[string]string{"d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: n, uid: u2}\n"})
	s, err = ReadFiles([]string{path, filepath.Join(dump, "d.yaml")}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Catalog().ForGroupKind("apps", "Deployment"); !ok || s.Source.Server != "" {
		t.Errorf("mixed input: deployments known = %v, server %q; want the built-in catalog and no server", ok, s.Source.Server)
	}
}

func TestReadClusterInfoDumpStdout(t *testing.T) {
	// `kubectl cluster-info dump > dump.txt`: typed lists and container
	// logs, one after the other.
	dump := `{
    "kind": "NodeList",
    "apiVersion": "v1",
    "items": [{"metadata": {"name": "node-1", "uid": "n1"}}]
}
{
    "kind": "PodList",
    "apiVersion": "v1",
    "items": [{"metadata": {"name": "web", "namespace": "shop", "uid": "p1"}}]
}
==== START logs for container app of pod shop/web ====
{"level":"info","msg":"a log line that looks like JSON"}
==== not the end ====
==== END logs for container app of pod shop/web ====
{
    "kind": "ReplicationControllerList",
    "apiVersion": "v1",
    "items": [{"metadata": {"name": "rc", "namespace": "shop", "uid": "r1"}}]
}
==== START logs for container app of pod shop/cut ====
truncated`
	s, err := ReadFiles([]string{"-"}, strings.NewReader(dump), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "v1 Node/node-1; v1 Pod/web -n shop; v1 ReplicationController/rc -n shop"
	if got := strings.Join(testobj.Refs(s), "; "); got != want || len(s.Warnings) != 0 {
		t.Errorf("objects = %q, warnings %q; want %q", got, testobj.Warnings(s), want)
	}
	if got := hintFromFileName("shop/replication-controllers.json"); got.kind != "ReplicationController" {
		t.Errorf("replication-controllers.json hints %+v", got)
	}
}

func TestReadYAMLListStreamed(t *testing.T) {
	// Past the streaming threshold, a kubectl-shaped List is read item by
	// item; the result must not differ from reading it whole.
	whole, err := ReadFiles([]string{"testdata/kubectl-list.yaml"}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := ReadFiles([]string{"testdata/kubectl-list.yaml"}, nil, ReadOptions{yamlStreamAt: 200})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	mustWrite(t, &a, whole)
	mustWrite(t, &b, streamed)
	if a.String() != b.String() || len(streamed.Warnings) != 0 {
		t.Errorf("streamed YAML differs from whole YAML (warnings %q):\n%s\nvs\n%s", testobj.Warnings(streamed), b.String(), a.String())
	}

	tests := []struct {
		name, yaml, want, wantErr string
	}{
		{
			name: "typed list, kind after the items, comments and blank lines in block scalars",
			yaml: "apiVersion: v1\nitems:\n- metadata:\n    name: a\n    namespace: ns\n    uid: u1\n    labels:\n      note: |\n        one\n\n        three\n# a comment between items\n- metadata:\n    name: b\n    namespace: ns\n    uid: u2\nkind: ConfigMapList\nmetadata:\n  resourceVersion: \"\"\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns, uid: u3}\n",
			want: "v1 ConfigMap/a -n ns; v1 ConfigMap/b -n ns; v1 Secret/s -n ns",
		},
		{
			name:    "malformed item names its line",
			yaml:    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a, namespace: ns, uid: u1}\n- apiVersion: v1\n  kind: [Pod\n",
			wantErr: "document 1: item at line 7: invalid YAML: yaml: line 2: did not find expected ',' or ']'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"l.yaml": tt.yaml})
			s, err := ReadFiles([]string{filepath.Join(dir, "l.yaml")}, nil, ReadOptions{yamlStreamAt: 30})
			if tt.wantErr != "" {
				if err == nil || strings.ReplaceAll(err.Error(), dir+"/l.yaml: ", "") != tt.wantErr {
					t.Errorf("error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(testobj.Refs(s), "; "); got != tt.want || len(s.Warnings) != 0 {
				t.Errorf("objects = %q (warnings %q), want %q", got, testobj.Warnings(s), tt.want)
			}
			if tt.want != "" && s.Objects[0].Metadata.Labels["note"] != "one\n\nthree\n" {
				t.Errorf("block scalar = %q", s.Objects[0].Metadata.Labels["note"])
			}
		})
	}
}

// A folder holding a dump and a kgc snapshot of the same cluster repeats
// every object: each is kept once, the newer copy (the higher
// resourceVersion, else the later capture), with one warning for all,
// and none of them is a duplicate-uid hazard.
func TestReadSameObjectsTwiceKeepsTheNewer(t *testing.T) {
	pod := func(name, uid, rv, from string) string {
		m := `"name":"` + name + `","namespace":"ns","uid":"` + uid + `","labels":{"from":"` + from + `"}`
		if rv != "" {
			m += `,"resourceVersion":"` + rv + `"`
		}
		return `{"apiVersion":"v1","kind":"Pod","metadata":{` + m + `}}`
	}
	dump := `{"apiVersion":"v1","kind":"List","items":[` + pod("a", "ua", "5", "dump") + `,` + pod("b", "ub", "7", "dump") + `,` + pod("c", "uc", "", "dump") + `]}`
	snap := func(at string) string {
		return `{"apiVersion":"kgc.dev/v1alpha1","kind":"Snapshot","capturedAt":"` + at + `","source":{"type":"live","server":"https://k"},"resources":[],"objects":[` +
			pod("a", "ua", "6", "snapshot") + `,` + pod("b", "ub", "7", "snapshot") + `,` + pod("c", "uc", "", "snapshot") + `]}`
	}
	dumpTime := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, snapAt string
		want         string // the copy kept of a, b and c
	}{
		{"snapshot taken after the dump", "2026-01-03T00:00:00Z", "a=snapshot b=dump c=snapshot"},
		{"snapshot taken before the dump", "2026-01-01T00:00:00Z", "a=snapshot b=dump c=dump"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"dump.json": dump, "snapshot.json": snap(tt.snapAt)})
			if err := os.Chtimes(filepath.Join(dir, "dump.json"), dumpTime, dumpTime); err != nil {
				t.Fatal(err)
			}
			s, err := ReadFiles([]string{dir}, nil, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range s.Objects {
				got = append(got, o.Metadata.Name+"="+o.Metadata.Labels["from"])
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("kept %s, want %s", strings.Join(got, " "), tt.want)
			}
			wantW := "3 objects were read more than once (same UID, kind and name) from DIR/dump.json and DIR/snapshot.json: kept one copy of each (the higher resourceVersion, else the later capture, else the first read)"
			if w := strings.Join(testobj.Warnings(s), "\n"); w != strings.ReplaceAll(wantW, "DIR", dir) {
				t.Errorf("warnings =\n%s\nwant one summary:\n%s", w, strings.ReplaceAll(wantW, "DIR", dir))
			}
			if len(s.Duplicates) != 0 {
				t.Errorf("duplicates = %d, want none: the same object read twice is not a duplicate UID", len(s.Duplicates))
			}
		})
	}
}

// Snapshot files of one cluster taken by users allowed into different
// namespaces read together: a type is listed in every namespace either
// listed it in, and at cluster scope if either did.
func TestReadSnapshotsMergeListedNamespaces(t *testing.T) {
	snap := func(uid, ns, listedIn string) string {
		res := `{"group":"","version":"v1","resource":"configmaps","kind":"ConfigMap","namespaced":true,"listed":true,"count":1`
		if listedIn != "" {
			res += `,"error":"forbidden (HTTP 403)","namespaces":["` + listedIn + `"]`
		}
		return `{"apiVersion":"kgc.dev/v1alpha1","kind":"Snapshot","capturedAt":"2026-01-02T00:00:00Z","source":{"type":"live","server":"https://k"},"resources":[` + res + `}],"objects":[` +
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"` + ns + `","uid":"` + uid + `"}}]}`
	}
	for _, tc := range []struct {
		name    string
		files   map[string]string
		want    []string
		wantErr string
	}{
		{"two namespaces", map[string]string{"a.json": snap("u1", "a", "a"), "b.json": snap("u2", "b", "b")}, []string{"a", "b"}, "forbidden (HTTP 403)"},
		{"one at cluster scope", map[string]string{"a.json": snap("u1", "a", "a"), "b.json": snap("u2", "b", "")}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ReadFiles([]string{writeFiles(t, tc.files)}, nil, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cm, _ := s.Catalog().ForGroupKind("", "ConfigMap")
			if !cm.Listed || strings.Join(cm.Namespaces, ",") != strings.Join(tc.want, ",") || cm.Error != tc.wantErr {
				t.Errorf("configmaps = %+v, want listed in %v", cm, tc.want)
			}
		})
	}
}

func mustWrite(t *testing.T, w io.Writer, s *snapshot.Snapshot) {
	t.Helper()
	if err := Write(w, s); err != nil {
		t.Fatal(err)
	}
}

// TestRepeatsAcrossStoreChunks reads one List of more objects than the
// store's first chunk, where copies of objects far apart share a UID: each
// repeated UID keeps one object (the higher resourceVersion), every other
// object is kept once, in order, and the dropped copies are warned about.
func TestRepeatsAcrossStoreChunks(t *testing.T) {
	const n = 1<<chunkBits + 5000
	var b strings.Builder
	b.WriteString(`{"kind":"List","apiVersion":"v1","items":[`)
	for i := range n {
		uid, rv := fmt.Sprintf("u%d", i), "5"
		switch i {
		case n - 1: // a newer copy of the first object
			uid, rv = "u0", "9"
		case n - 2: // the same object as the one in the second chunk's middle
			uid = fmt.Sprintf("u%d", 1<<chunkBits+100)
		}
		if i > 0 {
			b.WriteString(",")
		}
		name := fmt.Sprintf("p%06d", i)
		if i == n-1 {
			name = "p000000"
		}
		if i == n-2 {
			name = fmt.Sprintf("p%06d", 1<<chunkBits+100)
		}
		fmt.Fprintf(&b, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"ns","uid":%q,"resourceVersion":%q}}`, name, uid, rv)
	}
	b.WriteString("]}")
	s := readString(t, b.String())
	if len(s.Objects) != n-2 {
		t.Fatalf("read %d objects, want %d: each repeated UID keeps one", len(s.Objects), n-2)
	}
	for i, o := range s.Objects {
		if want := fmt.Sprintf("p%06d", i); o.Metadata.Name != want {
			t.Fatalf("object %d is %s, want %s", i, o.Metadata.Name, want)
		}
	}
	if rv := s.Objects[0].Metadata.ResourceVersion; rv != "9" {
		t.Errorf("kept resourceVersion %s of u0, want the newer copy's 9", rv)
	}
	if len(s.Duplicates) != 0 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Message, "2 objects were read more than once") {
		t.Errorf("duplicates %d, warnings %v; want none and one saying 2 objects were read more than once", len(s.Duplicates), s.Warnings)
	}
}

// TestItemBatchGrows: a batch's buffer starts small and doubles each time
// it is reused, up to itemBatchBytes, so that a big List is handed over
// in few batches and a small one allocates little.
func TestItemBatchGrows(t *testing.T) {
	b := &itemBatch{}
	var caps []int
	for range 7 {
		caps = append(caps, cap(b.grow().buf))
		b.buf = b.buf[:0]
	}
	want := []int{16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 256 << 10, 256 << 10}
	if !slices.Equal(caps, want) {
		t.Fatalf("buffer sizes %v as the batch is reused, want %v", caps, want)
	}
}

// TestLabelsOfNeighbours: objects read one after another get their own
// labels, whether the one before had the same, other or none, and those
// with the same labels share one map.
func TestLabelsOfNeighbours(t *testing.T) {
	labels := []string{`{"app":"x"}`, `{"app":"x"}`, `{"app":"y"}`, ``, `{"app":"x"}`, `{"app":"x","tier":"b"}`, `{"app":"y"}`}
	var items []string
	for i, l := range labels {
		meta := fmt.Sprintf(`"name":"c%d","namespace":"ns","uid":"u%d"`, i, i)
		if l != "" {
			meta += `,"labels":` + l
		}
		items = append(items, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{`+meta+`}}`)
	}
	s := readItems(t, items)
	byName := map[string]map[string]string{}
	for _, o := range s.Objects {
		byName[o.Metadata.Name] = o.Metadata.Labels
	}
	for i, l := range labels {
		var want map[string]string
		if l != "" {
			if err := json.Unmarshal([]byte(l), &want); err != nil {
				t.Fatal(err)
			}
		}
		if got := byName[fmt.Sprintf("c%d", i)]; !maps.Equal(got, want) {
			t.Errorf("c%d: labels %v, want %v", i, got, want)
		}
	}
	if reflect.ValueOf(byName["c0"]).Pointer() != reflect.ValueOf(byName["c4"]).Pointer() {
		t.Error("c0 and c4 have the same labels in two maps")
	}
}

// TestTimesOfNeighbours: objects read one after another get their own
// creation times, whether the one before had the same, another or none.
func TestTimesOfNeighbours(t *testing.T) {
	times := []string{"2025-03-14T09:26:53Z", "2025-03-14T09:26:53Z", "2025-03-14T09:26:54Z", "", "2025-03-14T09:26:53Z", `2025-03-14T09:26:5\u0033Z`}
	var items []string
	for i, ts := range times {
		meta := fmt.Sprintf(`"name":"c%d","namespace":"ns","uid":"u%d"`, i, i)
		if ts != "" {
			meta += `,"creationTimestamp":"` + ts + `"`
		}
		items = append(items, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{`+meta+`}}`)
	}
	s := readItems(t, items)
	got := map[string]string{}
	for _, o := range s.Objects {
		if c := o.Metadata.CreationTimestamp; c != nil {
			got[o.Metadata.Name] = c.Format(time.RFC3339)
		}
	}
	want := map[string]string{"c0": "2025-03-14T09:26:53Z", "c1": "2025-03-14T09:26:53Z", "c2": "2025-03-14T09:26:54Z",
		"c4": "2025-03-14T09:26:53Z", "c5": "2025-03-14T09:26:53Z"}
	if !maps.Equal(got, want) {
		t.Fatalf("creation times %v, want %v", got, want)
	}
}

// TestManyBatchesReadInOrder: a List long enough to go through many
// batches, extracted on several goroutines, gives every warning in the
// order of its items and keeps the first read of two copies of one
// object, as read one item after the other.
func TestManyBatchesReadInOrder(t *testing.T) {
	const n = 20000
	var items, want []string
	for i := range n {
		meta := fmt.Sprintf(`"name":"c%d","namespace":"ns","uid":"u%d","resourceVersion":"1"`, i, i)
		switch {
		case i%97 == 0:
			items = append(items, "7")
			want = append(want, fmt.Sprintf("items[%d]: skipped: not an object", i))
			continue
		case i%89 == 0:
			meta = fmt.Sprintf(`"name":"c%d","namespace":"ns"`, i)
			want = append(want, fmt.Sprintf("ConfigMap/c%d -n ns: %s", i, noUIDMessage))
		case i%83 == 0:
			meta += `,"generation":"x"`
			want = append(want, fmt.Sprintf("ConfigMap/c%d -n ns: skipped: metadata.generation: expected an integer", i))
		case i%79 == 0:
			meta += `,"ownerReferences":[{"kind":"X","name":"y"}]`
			want = append(want, fmt.Sprintf("ConfigMap/c%d -n ns: ownerReferences[0] has no apiVersion, uid; kept, the garbage collector cannot resolve it", i))
		case i == n-1:
			// The same UID as the second item, read last: the first copy
			// read stays.
			meta = `"name":"late","namespace":"ns","uid":"u1","resourceVersion":"1"`
		}
		items = append(items, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{`+meta+`,"labels":{"app":"x"}}}`)
	}
	want = append(want, "ConfigMap/late -n ns: duplicate uid u1: ConfigMap/c1 -n ns in - has it too; kept that one ("+keepRule+")")
	if size := len(strings.Join(items, ",")); size < 8*itemBatchBytes {
		t.Fatalf("the items are %d bytes, too few to need many batches", size)
	}
	s := readItems(t, items)
	var got []string
	for _, w := range s.Warnings {
		if w.File == "-" {
			got = append(got, w.Object+": "+w.Message)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%d warnings, want %d in item order; first difference:\n%s", len(got), len(want), firstDifference(got, want))
	}
	for _, o := range s.Objects {
		if o.Metadata.UID == "u1" && o.Metadata.Name != "c1" {
			t.Errorf("kept %s of the two objects with uid u1, want c1, read first", o.Metadata.Name)
		}
	}
}

// firstDifference shows where two lists of lines first differ.
func firstDifference(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("at %d: got %q, want %q", i, g, w)
		}
	}
	return "none"
}

// TestNeighboursRepeatingFields: an object's namespace, kind and owner's
// kind are its own whether its neighbour had the same value, another,
// the same written with an escape, or none.
func TestNeighboursRepeatingFields(t *testing.T) {
	namespaces := []string{`"a"`, `"a"`, `"b"`, `"\u0061"`, `"a"`, `null`, `""`, `"a"`, `"\u0062"`, `"b"`}
	want := []string{"a", "a", "b", "a", "a", "", "", "a", "b", "b"}
	var items []string
	for i, ns := range namespaces {
		items = append(items, fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d","namespace":%s,"uid":"u%d",`+
			`"ownerReferences":[{"apiVersion":"v1","kind":%s,"name":"o","uid":"o%d"}]}}`, i, ns, i, strings.ReplaceAll(ns, "null", `"x"`), i))
	}
	s := readItems(t, items)
	byName := map[string]snapshot.Object{}
	for _, o := range s.Objects {
		byName[o.Metadata.Name] = o
	}
	for i, w := range want {
		o := byName[fmt.Sprintf("c%d", i)]
		wantKind := w
		if namespaces[i] == "null" {
			wantKind = "x"
		}
		if o.Metadata.Namespace != w || len(o.Metadata.OwnerReferences) != 1 || o.Metadata.OwnerReferences[0].Kind != wantKind {
			t.Errorf("c%d: namespace %q, owner references %+v; want namespace %q and an owner of kind %q", i, o.Metadata.Namespace, o.Metadata.OwnerReferences, w, wantKind)
		}
	}
}

// readItems reads a List of items (JSON objects) from standard input.
func readItems(t *testing.T, items []string) *snapshot.Snapshot {
	t.Helper()
	list := `{"apiVersion":"v1","kind":"List","items":[` + strings.Join(items, ",\n") + `]}`
	s, err := ReadFiles([]string{"-"}, strings.NewReader(list), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

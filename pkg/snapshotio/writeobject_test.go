package snapshotio

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/internal/jsonw"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// randomObject fills every field of an object, or leaves it empty, with
// odd strings, zero and non-zero values, nil and empty slices.
func randomObject(rng *rand.Rand, shared []*snapshot.Facts) snapshot.Object {
	odd := []string{"", "plain", `q"uote`, `back\slash`, "tab\t", "<a>&b", "bad\xffutf8", "ls\u2028", "grüße"}
	str := func() string { return odd[rng.IntN(len(odd))] }
	maybe := func() bool { return rng.IntN(2) == 0 }
	var o snapshot.Object
	o.APIVersion, o.Kind = str(), str()
	m := &o.Metadata
	m.Name, m.Namespace, m.UID, m.ResourceVersion = str(), str(), str(), str()
	if maybe() {
		m.Generation = rng.Int64N(5) - 2
	}
	zones := []*time.Location{time.UTC, time.FixedZone("x", 3600), time.FixedZone("y", -5400)}
	at := func() *time.Time {
		if maybe() {
			return nil
		}
		t := time.Unix(rng.Int64N(4e9), rng.Int64N(3)*int64(rng.IntN(1e9))).In(zones[rng.IntN(3)])
		if rng.IntN(50) == 0 {
			t = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // encoding/json refuses it
		}
		return &t
	}
	m.CreationTimestamp, m.DeletionTimestamp = at(), at()
	if maybe() {
		g := rng.Int64N(60)
		m.DeletionGracePeriodSeconds = &g
	}
	switch rng.IntN(3) {
	case 1:
		m.Finalizers = []string{}
	case 2:
		m.Finalizers = []string{str(), str()}
	}
	b := func() *bool {
		if maybe() {
			return nil
		}
		v := maybe()
		return &v
	}
	for range rng.IntN(3) {
		m.OwnerReferences = append(m.OwnerReferences, snapshot.OwnerReference{APIVersion: str(), Kind: str(), Name: str(), UID: str(), Controller: b(), BlockOwnerDeletion: b()})
	}
	if maybe() {
		m.Labels = map[string]string{}
		for range rng.IntN(4) {
			m.Labels[str()] = str()
		}
	}
	if maybe() {
		o.Facts = shared[rng.IntN(len(shared))]
	}
	return o
}

// The hand-written object is encoding/json's, byte for byte.
func TestObjectWriterIsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	grace := int64(30)
	shared := []*snapshot.Facts{{}, {Keep: "helm.sh/resource-policy=keep"}, {Pod: &snapshot.PodFacts{NodeName: "n<1>", Phase: "Running", TerminationGracePeriodSeconds: &grace}},
		{Workload: &snapshot.WorkloadFacts{Revision: "2"}}, {Namespace: &snapshot.NamespaceFacts{Phase: "Terminating", SpecFinalizers: []string{"kubernetes"}}}}
	var w objectWriter
	for i := range 3000 {
		o := randomObject(rng, shared)
		want, werr := jsonw.Marshal(&o)
		got, gerr := w.appendObject(nil, &o)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("object %d: encoding/json: %v; by hand: %v", i, werr, gerr)
		}
		if werr == nil && string(got) != string(want) {
			t.Fatalf("object %d differs\ngot:  %s\nwant: %s", i, got, want)
		}
	}
}

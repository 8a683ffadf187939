package plan

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// Small builders on top of pkg/snapshot/testobj for the types the upstream
// tests use that it lacks.

func rc(ns, name string) *testobj.Builder {
	return testobj.New("v1", "ReplicationController", ns, name)
}
func pod(ns, name string) *testobj.Builder { return testobj.Pod(ns, name) }
func cm(ns, name string) *testobj.Builder  { return testobj.ConfigMap(ns, name) }
func secret(ns, name string) *testobj.Builder {
	return testobj.Secret(ns, name)
}
func cr(apiVersion, kind, ns, name string) *testobj.Builder {
	return testobj.New(apiVersion, kind, ns, name)
}

var (
	blk   = testobj.Block
	ctl   = testobj.Controller
	noBlk = testobj.NoBlock
	ref   = testobj.Ref
	refTo = testobj.RefTo
)

func ptrBool(b bool) *bool { return &b }

// world builds a snapshot with the built-in catalog plus the types the
// scenarios use: RCs, and the custom types of the CR scenarios.
func world(objs ...snapshot.Object) *testobj.SnapshotBuilder {
	return testobj.Snapshot(objs...).
		Resource(snapshot.Resource{Version: "v1", Resource: "replicationcontrollers", Kind: "ReplicationController", Namespaced: true, ShortNames: []string{"rc"}, Listed: true}).
		CRD("stable.example.com", "Widget", "widgets", true, "v1").
		CRD("stable.example.com", "Gadget", "gadgets", false, "v1")
}

// describe renders a final state the way the tables spell it.
func describe(s FinalState) string {
	if !s.Exists {
		return "gone"
	}
	var b strings.Builder
	b.WriteString("exists")
	if s.Terminating {
		b.WriteString(" terminating")
	}
	if len(s.Finalizers) > 0 {
		f := append([]string(nil), s.Finalizers...)
		sort.Strings(f)
		fmt.Fprintf(&b, " fin=%s", strings.Join(f, ","))
	}
	if len(s.OwnerReferences) > 0 {
		fmt.Fprintf(&b, " owners=%s", strings.Join(s.OwnerReferences, ","))
	}
	return b.String()
}

// simulate runs actions and returns every object's final state by UID.
func simulate(t *testing.T, snap *snapshot.Snapshot, actions []Action, opts Options) (map[string]string, *Plan) {
	t.Helper()
	out, err := SimulateActions(snap, actions, opts)
	if err != nil {
		t.Fatalf("SimulateActions: %v", err)
	}
	got := map[string]string{}
	for _, o := range snap.Objects {
		st, ok := out.State(o.Metadata.UID)
		if !ok {
			t.Fatalf("no state for %s", o.Metadata.UID)
		}
		got[o.Metadata.UID] = describe(st.FinalState)
	}
	return got, out.Plan
}

func checkStates(t *testing.T, got, want map[string]string, p *Plan) {
	t.Helper()
	for uid, w := range want {
		if got[uid] != w {
			t.Errorf("%s: got %q, want %q", uid, got[uid], w)
		}
	}
	if t.Failed() && p != nil {
		for _, s := range p.Steps {
			t.Logf("step %d wave %d %s %s %s %s %s", s.Step, s.Wave, s.Actor, s.Action, s.Object, s.PropagationPolicy, s.Detail)
		}
		for _, n := range p.Notes {
			t.Logf("note: %s", n)
		}
	}
}

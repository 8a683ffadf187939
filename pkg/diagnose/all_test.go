package diagnose

import (
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

func TestAllGroupsByRootCauseOldestFirst(t *testing.T) {
	team := terminatingNS("team-a", ago(3*time.Hour))
	w1 := gone(testobj.New("example.com/v1", "Widget", "team-a", "w1").Deleting(ago(3 * time.Hour)).Finalizers("example.com/cleanup").Build())
	other := gone(testobj.ConfigMap("shop", "cm").Deleting(ago(5 * time.Hour)).Finalizers("acme.io/keep").Build())
	live := testobj.ConfigMap("shop", "live").Build()
	snap := testobj.Snapshot(team, w1, other, live).CRD("example.com", "Widget", "widgets", true).Build()
	d := New(snap, nil, Options{})

	list := d.All("")
	if list.Kind != KindDiagnosisList || len(list.Items) != 3 {
		t.Fatalf("kind %s with %d items, want DiagnosisList with the 3 terminating objects", list.Kind, len(list.Items))
	}
	// Oldest first: the configmap (5h), then the namespace and widget (3h,
	// namespace before widget in contract order).
	wantItems := []string{other.Metadata.UID, team.Metadata.UID, w1.Metadata.UID}
	for i, w := range wantItems {
		if list.Items[i].Object.UID != w {
			t.Errorf("item %d = %s, want %s", i, list.Items[i].Object.UID, w)
		}
	}
	if len(list.Groups) != 2 {
		t.Fatalf("%d groups, want 2", len(list.Groups))
	}
	g0, g1 := list.Groups[0], list.Groups[1]
	if g0.RootCause.Object.UID != other.Metadata.UID || g0.RootCause.Finalizer != "acme.io/keep" || len(g0.Objects) != 1 {
		t.Errorf("first group = %+v", g0)
	}
	if g1.RootCause.Object.UID != w1.Metadata.UID || len(g1.Objects) != 2 ||
		g1.Objects[0].Object.UID != team.Metadata.UID || g1.Objects[1].Object.UID != w1.Metadata.UID {
		t.Errorf("second group = %+v, want the widget's finalizer holding the namespace and the widget", g1)
	}
	if g1.Objects[0].AgeSeconds != int64((3 * time.Hour).Seconds()) {
		t.Errorf("age = %d", g1.Objects[0].AgeSeconds)
	}

	scoped := d.All("team-a")
	if len(scoped.Items) != 2 || len(scoped.Groups) != 1 {
		t.Errorf("-n team-a: %d items, %d groups; want the namespace and its widget under one root cause", len(scoped.Items), len(scoped.Groups))
	}
}

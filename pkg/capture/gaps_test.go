package capture

import (
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// The RBAC summary names the unread types the answer depends on: owner
// kinds the objects read reference, the nodes their pods run on.
func TestRBACWarningsNameWhatMatters(t *testing.T) {
	rs := testobj.ReplicaSet("team", "web-1").UID("rs").Build()
	pods := []snapshot.Object{
		testobj.Pod("team", "a").UID("a").OwnedBy(rs).Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "n1"}}).Build(),
		testobj.Pod("team", "b").UID("b").OwnedBy(rs).Facts(&snapshot.Facts{Pod: &snapshot.PodFacts{NodeName: "n1"}}).Build(),
	}
	refused := `forbidden: User "bob" cannot list (HTTP 403)`
	snap := testobj.Snapshot(pods...).Live().
		Unlisted("", "Node", refused).Unlisted("apps", "ReplicaSet", refused).Unlisted("", "Secret", refused).Build()
	got := RBACWarnings(snap, 0)
	want := `RBAC kept User "bob" from listing 3 types at cluster scope: nodes, replicasets.apps, secrets; what depends on these is unknown: nodes (2 pods read run on them), replicasets.apps (owner in 2 references)`
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings = %q\nwant %q", got, want)
	}
}

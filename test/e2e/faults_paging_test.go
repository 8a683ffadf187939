package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// TestFaultCaptureContinueTokenGone: the API server answers 410 Gone to
// the first list page that carries a continue token (the token expired
// while kgc read the list in pages of 5, from etcd: --consistent-read,
// as a list from the watch cache comes whole whatever its limit). kgc relists ConfigMaps from
// the start, as a reflector does, and the snapshot holds each of the 40
// ConfigMaps once: nothing lost, nothing read twice.
func TestFaultCaptureContinueTokenGone(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "fault-continue")
	const n = 40
	for i := range n {
		env.MustCreate(t, ctx, framework.ConfigMaps, framework.Obj("v1", "ConfigMap", ns, fmt.Sprintf("cm-%02d", i)))
	}
	p := framework.NewFaultProxy(t, env.CP)
	p.Inject(&framework.Fault{Match: framework.Match{Method: "GET", Path: "/configmaps", Query: "continue=", Watch: "no", Times: 1},
		Kind: framework.Status, Code: 410})
	out := filepath.Join(t.TempDir(), "snap.json")
	res := env.RunKGCVia(t, p, "snapshot", "-n", ns, "--chunk-size", "5", "--consistent-read", "--output-file", out)
	t.Logf("kgc snapshot: exit %d\nstderr: %s\nthrough the proxy: %s", res.ExitCode, res.Stderr, p.Summary())
	if res.ExitCode != 0 {
		t.Fatalf("%s", res)
	}
	if p.Fired() != 1 {
		t.Fatalf("the 410 fired %d times; the case needs a list read in pages (continue tokens)", p.Fired())
	}
	// 8 pages of 5; the second page answered 410, so the list is read
	// once more from its first page: 2 + 8 requests.
	if got := p.Count("GET", "/namespaces/"+ns+"/configmaps"); got != 2+n/5 {
		t.Errorf("%d list requests of ConfigMaps, want %d: one aborted read (first page, 410) and one whole relist", got, 2+n/5)
	}
	doc := readSnapshotDoc(t, out)
	uids := map[string]int{}
	names := map[string]int{}
	for _, o := range doc.Objects {
		uids[o.Metadata.UID]++
		if o.Kind == "ConfigMap" && o.Metadata.Namespace == ns {
			names[o.Metadata.Name]++
		}
	}
	for uid, c := range uids {
		if c > 1 {
			t.Errorf("uid %s is %d times in the snapshot", uid, c)
		}
	}
	for i := range n {
		if name := fmt.Sprintf("cm-%02d", i); names[name] != 1 {
			t.Errorf("ConfigMap %s is %d times in the snapshot, want once", name, names[name])
		}
	}
	if len(names) != n {
		t.Errorf("%d ConfigMaps of %s in the snapshot, want %d", len(names), ns, n)
	}
}

// readSnapshotDoc reads a snapshot file kgc wrote.
func readSnapshotDoc(t *testing.T, path string) snapshotDoc {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc snapshotDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s is not a snapshot: %v", path, err)
	}
	return doc
}

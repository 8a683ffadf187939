package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Cluster identifies the cluster a plan was made against. KubeSystemUID
// is the fingerprint: it survives a renamed context or a new load
// balancer in front of the API server, and differs between clusters.
type Cluster struct {
	Server        string `json:"server"`
	KubeSystemUID string `json:"kubeSystemUID"`
}

// ClusterOf is the cluster snap was captured from, nil for a snapshot
// read from files: a document made from files cannot be applied.
func ClusterOf(snap *snapshot.Snapshot) *Cluster {
	if snap.Source.Type != "live" {
		return nil
	}
	return &Cluster{Server: snap.Source.Server, KubeSystemUID: snap.Source.KubeSystemUID}
}

// Request is the DELETE the plan simulates, as apply will send it.
type Request struct {
	Target snapshot.ObjectRef `json:"target"`
	// PropagationPolicy is the policy sent; "" sends none.
	PropagationPolicy Policy `json:"propagationPolicy"`
}

// BasisEntry is one object whose state the plan's outcome depends on, as
// the plan read it.
type BasisEntry struct {
	Object          snapshot.ObjectRef `json:"object"`
	ResourceVersion string             `json:"resourceVersion"`
}

// DigestPrefix names the hash of a plan's digest.
const DigestPrefix = "sha256:"

// Seal records in p what applying it needs: the cluster (live snapshots
// only: a plan from files has none and cannot be applied; without a
// fingerprint, kube-system being unreadable, neither can a live one), when the state
// was read, the request, the basis and the digest that approves exactly
// this plan. It is separate from Simulate because only a plan that is
// printed needs it; the simulations behind diagnoses do not.
func Seal(p *Plan, snap *snapshot.Snapshot) {
	p.Cluster = ClusterOf(snap)
	at := snap.CapturedAt.UTC()
	p.CapturedAt = &at
	p.Request = &Request{Target: p.Target, PropagationPolicy: p.PropagationPolicy}
	p.Basis = basis(p, snap)
	p.Digest = Digest(p)
}

// basis lists the target, every object the plan lists and every object
// blocking one of them (in any alternative too), with the resourceVersion
// the snapshot read. Objects the snapshot does not hold (a virtual owner)
// have no version to pin and are left out.
func basis(p *Plan, snap *snapshot.Snapshot) []BasisEntry {
	want := map[string]bool{p.Target.UID: true}
	for _, of := range p.Objects {
		want[of.Object.UID] = true
		addBlockers(want, of.BlockedBy)
		for _, a := range of.Alternatives {
			addBlockers(want, a.BlockedBy)
		}
	}
	out := []BasisEntry{}
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if want[o.Metadata.UID] {
			out = append(out, BasisEntry{Object: o.Ref(), ResourceVersion: o.Metadata.ResourceVersion})
			delete(want, o.Metadata.UID) // a duplicate UID counts once
		}
	}
	slices.SortFunc(out, func(a, b BasisEntry) int { return a.Object.Compare(b.Object) })
	return out
}

func addBlockers(want map[string]bool, bs []Blocker) {
	for _, b := range bs {
		for _, o := range b.Objects {
			want[o.UID] = true
		}
	}
}

// Digest hashes the cluster fingerprint, the request and the basis: the
// fields that say which change on which state was reviewed. Any change to
// them, on the cluster or in the file, gives another digest. A plan without
// a request has no digest.
func Digest(p *Plan) string {
	if p.Request == nil {
		return ""
	}
	fingerprint := ""
	if p.Cluster != nil {
		fingerprint = p.Cluster.KubeSystemUID
	}
	// One quoted field per line: unambiguous whatever the values hold.
	h := sha256.New()
	r := p.Request
	fmt.Fprintf(h, "cluster %q\ntarget %q %q %q %q %q\npolicy %q\n", fingerprint,
		r.Target.APIVersion, r.Target.Kind, r.Target.Namespace, r.Target.Name, r.Target.UID, r.PropagationPolicy)
	for _, b := range p.Basis {
		fmt.Fprintf(h, "basis %q %q\n", b.Object.UID, b.ResourceVersion)
	}
	return DigestPrefix + hex.EncodeToString(h.Sum(nil))
}

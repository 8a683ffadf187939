package plan

import (
	"strings"
	"testing"
)

// sealed plans a background delete of ConfigMap owner in a small world:
// one dependent, one unrelated object, with the given dependent version.
func sealed(t *testing.T, live bool, depRV string) *Plan {
	t.Helper()
	owner := cm("ns", "owner").ResourceVersion("10").Build()
	dep := secret("ns", "dep").ResourceVersion(depRV).OwnedBy(owner).Build()
	other := cm("ns", "other").ResourceVersion("12").Build()
	b := world(owner, dep, other)
	if live {
		b = b.Live()
	}
	snap := b.Build()
	snap.Source.KubeSystemUID = "ks-uid"
	p, err := Simulate(snap, Options{Target: owner.Metadata.UID, Policy: PolicyBackground})
	if err != nil {
		t.Fatal(err)
	}
	Seal(p, snap)
	return p
}

func TestSealBasis(t *testing.T) {
	p := sealed(t, true, "11")
	var got []string
	for _, b := range p.Basis {
		got = append(got, b.Object.Kind+"/"+b.Object.Name+"@"+b.ResourceVersion)
	}
	if want := "ConfigMap/owner@10 Secret/dep@11"; strings.Join(got, " ") != want {
		t.Errorf("basis = %v, want %s (the target and its dependent, not the unrelated ConfigMap)", got, want)
	}
	if p.Cluster == nil || p.Cluster.KubeSystemUID != "ks-uid" || p.Cluster.Server == "" {
		t.Errorf("cluster = %+v, want the live server and kube-system UID", p.Cluster)
	}
	if p.Request == nil || p.Request.Target.UID != p.Target.UID || p.Request.PropagationPolicy != PolicyBackground {
		t.Errorf("request = %+v", p.Request)
	}
	if !strings.HasPrefix(p.Digest, DigestPrefix) || p.Digest != Digest(p) {
		t.Errorf("digest = %q, want the recomputable sha256", p.Digest)
	}
}

func TestSealFromFilesHasNoCluster(t *testing.T) {
	if p := sealed(t, false, "11"); p.Cluster != nil {
		t.Errorf("a plan from files has cluster %+v, want none", p.Cluster)
	}
}

func TestDigestChangesWithTheBasis(t *testing.T) {
	a, b := sealed(t, true, "11"), sealed(t, true, "11")
	if a.Digest != b.Digest {
		t.Fatalf("the same plan gave digests %s and %s", a.Digest, b.Digest)
	}
	if c := sealed(t, true, "99"); c.Digest == a.Digest {
		t.Errorf("a dependent's new resourceVersion left the digest %s unchanged", a.Digest)
	}
	files := sealed(t, false, "11")
	if files.Digest == a.Digest {
		t.Errorf("a plan from files has the live plan's digest")
	}
	a.Request.PropagationPolicy = PolicyOrphan
	if Digest(a) == b.Digest {
		t.Errorf("another policy left the digest unchanged")
	}
}

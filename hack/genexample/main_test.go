package main

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kgc-dev/kgc/internal/golden"
)

var committed = filepath.Join("..", "..", "examples", "cluster.yaml")

// TestCommittedExampleIsUpToDate keeps examples/cluster.yaml and this
// generator from drifting: edit the generator, then run this test with
// -update (or `go run ./hack/genexample > examples/cluster.yaml`).
func TestCommittedExampleIsUpToDate(t *testing.T) {
	got, err := generate()
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	golden.Assert(t, committed, got)
}

func TestGeneratorIsDeterministic(t *testing.T) {
	a, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two runs of the generator produced different dumps")
	}
}

// obj is the little of an object these tests look at.
type obj struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   objMeta        `json:"metadata"`
	Data       map[string]any `json:"data"`
	Spec       map[string]any `json:"spec"`
	Status     map[string]any `json:"status"`
}

type objMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	UID               string            `json:"uid"`
	ResourceVersion   string            `json:"resourceVersion"`
	CreationTimestamp string            `json:"creationTimestamp"`
	DeletionTimestamp string            `json:"deletionTimestamp"`
	Finalizers        []string          `json:"finalizers"`
	Annotations       map[string]string `json:"annotations"`
	ManagedFields     []any             `json:"managedFields"`
	OwnerReferences   []struct {
		APIVersion         string `json:"apiVersion"`
		Kind               string `json:"kind"`
		Name               string `json:"name"`
		UID                string `json:"uid"`
		Controller         *bool  `json:"controller"`
		BlockOwnerDeletion *bool  `json:"blockOwnerDeletion"`
	} `json:"ownerReferences"`
}

func (o obj) key() string { return o.Kind + "/" + o.Metadata.Namespace + "/" + o.Metadata.Name }

func loadExample(t *testing.T) []obj {
	t.Helper()
	out, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Items      []obj  `json:"items"`
	}
	if err := yaml.Unmarshal(out, &list); err != nil {
		t.Fatalf("the dump is not valid YAML: %v", err)
	}
	if list.APIVersion != "v1" || list.Kind != "List" {
		t.Fatalf("the dump is a %s %s, want a v1 List as kubectl prints it", list.APIVersion, list.Kind)
	}
	return list.Items
}

func find(t *testing.T, objs []obj, kind, ns, name string) obj {
	t.Helper()
	for _, o := range objs {
		if o.Kind == kind && o.Metadata.Namespace == ns && o.Metadata.Name == name {
			return o
		}
	}
	t.Fatalf("the example has no %s %s/%s", kind, ns, name)
	return obj{}
}

// TestExampleObjectsAreWellFormed checks what any reader of a real dump can
// rely on: every object has a UID, a resourceVersion and a creation time,
// and UIDs are unique.
func TestExampleObjectsAreWellFormed(t *testing.T) {
	objs := loadExample(t)
	if len(objs) < 60 {
		t.Errorf("the example has %d objects, want at least 60", len(objs))
	}
	seen := map[string]string{}
	for _, o := range objs {
		if o.Metadata.UID == "" || o.Metadata.ResourceVersion == "" || o.Metadata.CreationTimestamp == "" {
			t.Errorf("%s lacks uid, resourceVersion or creationTimestamp", o.key())
		}
		if prev, dup := seen[o.Metadata.UID]; dup {
			t.Errorf("%s and %s share uid %s", prev, o.key(), o.Metadata.UID)
		}
		seen[o.Metadata.UID] = o.key()
	}
}

// TestOwnerReferencesResolve: every owner reference names an object of the
// dump by UID, kind and name in the dependent's namespace, except the one
// cross-namespace reference the example exists to show.
func TestOwnerReferencesResolve(t *testing.T) {
	objs := loadExample(t)
	byUID := map[string]obj{}
	for _, o := range objs {
		byUID[o.Metadata.UID] = o
	}
	var crossNamespace []string
	for _, o := range objs {
		for _, r := range o.Metadata.OwnerReferences {
			owner, ok := byUID[r.UID]
			if !ok {
				t.Errorf("%s: owner %s %s (uid %s) is not in the dump", o.key(), r.Kind, r.Name, r.UID)
				continue
			}
			if owner.Kind != r.Kind || owner.Metadata.Name != r.Name || owner.APIVersion != r.APIVersion {
				t.Errorf("%s: owner reference %s %s %s does not match %s %s", o.key(), r.APIVersion, r.Kind, r.Name, owner.APIVersion, owner.key())
			}
			if owner.Metadata.Namespace != o.Metadata.Namespace {
				crossNamespace = append(crossNamespace, o.key()+" -> "+owner.key())
				continue
			}
			if r.Controller == nil || !*r.Controller || r.BlockOwnerDeletion == nil || !*r.BlockOwnerDeletion {
				t.Errorf("%s: the reference to %s is not a controller reference with blockOwnerDeletion, as the built-in controllers write them", o.key(), owner.key())
			}
		}
	}
	want := []string{"ConfigMap/shop/shared-config -> ConfigMap/ops/owner-config"}
	if strings.Join(crossNamespace, ";") != strings.Join(want, ";") {
		t.Errorf("cross-namespace owner references = %q, want %q", crossNamespace, want)
	}
}

// TestExampleHoldsTheDocumentedHazards checks the promises of
// examples/README.md, one per hazard.
func TestExampleHoldsTheDocumentedHazards(t *testing.T) {
	objs := loadExample(t)

	t.Run("widget stuck on a finalizer no controller serves", func(t *testing.T) {
		w := find(t, objs, "Widget", "shop", "gizmo")
		if w.Metadata.DeletionTimestamp == "" || strings.Join(w.Metadata.Finalizers, ",") != "widgets.example.com/cleanup" {
			t.Errorf("gizmo: deletionTimestamp %q finalizers %v, want terminating on widgets.example.com/cleanup", w.Metadata.DeletionTimestamp, w.Metadata.Finalizers)
		}
		cm := find(t, objs, "ConfigMap", "shop", "gizmo-settings")
		if len(cm.Metadata.OwnerReferences) != 1 || cm.Metadata.OwnerReferences[0].UID != w.Metadata.UID {
			t.Errorf("gizmo-settings is not owned by gizmo: %+v", cm.Metadata.OwnerReferences)
		}
	})

	t.Run("deployment with two replicasets and five pods", func(t *testing.T) {
		d := find(t, objs, "Deployment", "shop", "web")
		pods := map[string]int{}
		for _, rs := range objs {
			if rs.Kind != "ReplicaSet" || len(rs.Metadata.OwnerReferences) == 0 || rs.Metadata.OwnerReferences[0].UID != d.Metadata.UID {
				continue
			}
			pods[rs.Metadata.Name] = 0
			for _, p := range objs {
				if p.Kind == "Pod" && len(p.Metadata.OwnerReferences) > 0 && p.Metadata.OwnerReferences[0].UID == rs.Metadata.UID {
					pods[rs.Metadata.Name]++
				}
			}
		}
		var counts []int
		for _, n := range pods {
			counts = append(counts, n)
		}
		sort.Ints(counts)
		if len(counts) != 2 || counts[0] != 2 || counts[1] != 3 {
			t.Errorf("web's ReplicaSets and their pod counts = %v, want one with 2 pods and one with 3", pods)
		}
	})

	t.Run("legacy namespace stuck on a pod of the unreachable node", func(t *testing.T) {
		ns := find(t, objs, "Namespace", "", "legacy")
		if ns.Metadata.DeletionTimestamp == "" || ns.Status["phase"] != "Terminating" {
			t.Errorf("legacy: deletionTimestamp %q phase %v, want Terminating", ns.Metadata.DeletionTimestamp, ns.Status["phase"])
		}
		if !strings.Contains(conditionMessage(ns, "NamespaceDeletionContentFailure"), "unexpected items still remain in namespace: legacy for gvr: /v1, Resource=pods") {
			t.Errorf("legacy's NamespaceDeletionContentFailure does not name the remaining pods: %v", ns.Status["conditions"])
		}
		p := find(t, objs, "Pod", "legacy", "report-runner")
		node := find(t, objs, "Node", "", p.Spec["nodeName"].(string))
		if p.Metadata.DeletionTimestamp == "" || len(node.Spec["taints"].([]any)) == 0 {
			t.Errorf("report-runner should be terminating on a tainted node, got deletionTimestamp %q on %s", p.Metadata.DeletionTimestamp, node.Metadata.Name)
		}
		b := find(t, objs, "Backup", "legacy", "nightly")
		if !contains(b.Metadata.Finalizers, "backups.example.com/protect") {
			t.Errorf("legacy/nightly finalizers = %v, want backups.example.com/protect", b.Metadata.Finalizers)
		}
	})

	t.Run("archive namespace reports its remaining finalizers", func(t *testing.T) {
		ns := find(t, objs, "Namespace", "", "archive")
		want := "Some content in the namespace has finalizers remaining: backups.example.com/protect in 1 resource instances"
		if got := conditionMessage(ns, "NamespaceFinalizersRemaining"); got != want {
			t.Errorf("archive NamespaceFinalizersRemaining = %q, want %q", got, want)
		}
	})

	t.Run("secret material a snapshot must drop", func(t *testing.T) {
		s := find(t, objs, "Secret", "shop", "db-credentials")
		if s.Data["password"] == nil || !strings.Contains(s.Metadata.Annotations[lastApplied], `"password"`) {
			t.Errorf("db-credentials should carry its data and a last-applied-configuration holding it")
		}
		withManaged := 0
		for _, o := range objs {
			if len(o.Metadata.ManagedFields) > 0 {
				withManaged++
			}
		}
		if withManaged == 0 || withManaged == len(objs) {
			t.Errorf("%d of %d objects carry managedFields, want some but not all", withManaged, len(objs))
		}
	})
}

func conditionMessage(o obj, typ string) string {
	conds, _ := o.Status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			s, _ := m["message"].(string)
			return s
		}
	}
	return ""
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// whyRemedy is the part of a why-stuck remedy the tests read.
type whyRemedy struct {
	ID      string `json:"id"`
	Action  string `json:"action"`
	Request *struct {
		Verb  string            `json:"verb"`
		Patch []json.RawMessage `json:"patch"`
	} `json:"request"`
}

// heldConfigMap creates ConfigMap held with finalizers and a Secret
// depending on it, deletes the ConfigMap (it stays terminating: no
// controller removes kgc.dev finalizers), and writes kgc why-stuck's
// document on it.
func heldConfigMap(t *testing.T, env *framework.Env, ns string, finalizers ...string) (why string, remedies []whyRemedy) {
	t.Helper()
	ctx := context.Background()
	cm := framework.Obj("v1", "ConfigMap", ns, "held")
	cm.SetFinalizers(finalizers)
	owner := env.MustCreate(t, ctx, framework.ConfigMaps, cm)
	dep := framework.Obj("v1", "Secret", ns, "dep")
	dep.SetOwnerReferences([]metav1.OwnerReference{framework.Ref(owner, nil, nil)})
	env.MustCreate(t, ctx, framework.Secrets, dep)
	if err := env.Client.CoreV1().ConfigMaps(ns).Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out := env.KGC(t, "why-stuck", "cm/held", "-n", ns, "-o", "json")
	why = filepath.Join(t.TempDir(), "why.json")
	if err := os.WriteFile(why, out, 0o600); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Remedies []whyRemedy `json:"remedies"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return why, doc.Remedies
}

func remedyByID(t *testing.T, rems []whyRemedy, id string) whyRemedy {
	t.Helper()
	for _, r := range rems {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("why-stuck offers no remedy %s: %+v", id, rems)
	return whyRemedy{}
}

// TestApplyRemedyUnsticks: the remedy removing the finalizer is applied,
// the ConfigMap goes, and the garbage collector then deletes its
// dependent; the report records the guarded PATCH.
func TestApplyRemedyUnsticks(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ns := env.Namespace(t, context.Background(), "remedy")
	why, rems := heldConfigMap(t, env, ns, "kgc.dev/hold")
	id := "remove-finalizer:configmap:" + ns + "/held:kgc.dev/hold"
	if r := remedyByID(t, rems, id); r.Request == nil || r.Request.Verb != "PATCH" {
		t.Fatalf("remedy %s has no PATCH request: %+v", id, r)
	}
	c := &applyCase{env: env, ns: ns}
	rep := c.apply(t, 0, why, "--remedy", id, "--yes", "--timeout", "90s")
	if rep.Outcome != "as-planned" || len(rep.Requests) != 1 || rep.Requests[0].Verb != "PATCH" || rep.Requests[0].Status != 200 ||
		rep.Requests[0].Preconditions.UID == "" || rep.Requests[0].Preconditions.ResourceVersion == "" {
		t.Fatalf("outcome %s, requests %+v; want as-planned after one guarded PATCH", rep.Outcome, rep.Requests)
	}
	ctx := context.Background()
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("real control plane: ConfigMap held still exists (%v)", err)
	}
}

// TestApplyRemedyRemovesOnlyItsFinalizer: of two finalizers, the remedy
// removes the one it names; the object stays held by the other, which
// the report plans and observes.
func TestApplyRemedyRemovesOnlyItsFinalizer(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ns := env.Namespace(t, context.Background(), "remedy-only")
	why, _ := heldConfigMap(t, env, ns, "kgc.dev/hold", "kgc.dev/other")
	c := &applyCase{env: env, ns: ns}
	rep := c.apply(t, 0, why, "--remedy", "remove-finalizer:configmap:"+ns+"/held:kgc.dev/hold", "--yes", "--timeout", "60s")
	if rep.Outcome != "as-planned" || len(rep.Objects) != 1 {
		t.Errorf("outcome %s, objects %+v; want the ConfigMap as planned, held by the other finalizer", rep.Outcome, rep.Objects)
	}
	cm, err := env.Client.CoreV1().ConfigMaps(ns).Get(context.Background(), "held", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cm.Finalizers, []string{"kgc.dev/other"}) {
		t.Errorf("real control plane: finalizers %v, want only kgc.dev/other", cm.Finalizers)
	}
}

// TestRemedyPatchFailsOnAConcurrentChange: the remedy's request, sent
// after the object changed, is refused by the API server and changes
// nothing: its test operations pin what the diagnosis saw.
func TestRemedyPatchFailsOnAConcurrentChange(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ns := env.Namespace(t, context.Background(), "remedy-race")
	_, rems := heldConfigMap(t, env, ns, "kgc.dev/hold", "kgc.dev/other")
	r := remedyByID(t, rems, "remove-finalizer:configmap:"+ns+"/held:kgc.dev/hold")
	ctx := context.Background()
	cm, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, "held", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Labels = map[string]string{"changed": "concurrently"}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(r.Request.Patch)
	if err != nil {
		t.Fatal(err)
	}
	_, err = env.Client.CoreV1().ConfigMaps(ns).Patch(ctx, "held", types.JSONPatchType, body, metav1.PatchOptions{})
	if err == nil {
		t.Fatalf("real control plane: the remedy's patch applied to a changed object")
	}
	t.Logf("refused as expected: %v", err)
	after, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, "held", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(after.Finalizers, []string{"kgc.dev/hold", "kgc.dev/other"}) {
		t.Errorf("real control plane: finalizers %v after a refused patch, want both kept", after.Finalizers)
	}
}

// TestApplyRemedyRefusesWhatChangedSinceReview: the saved remedy pins the
// ConfigMap as why-stuck read it; once someone else removed its other
// finalizer, applying it is refused as stale with the difference, and
// nothing is changed: the ConfigMap is still there, held.
func TestApplyRemedyRefusesWhatChangedSinceReview(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	ns := env.Namespace(t, ctx, "remedy-reviewed")
	why, _ := heldConfigMap(t, env, ns, "kgc.test/hold", "kgc.test/other")
	patch := `[{"op":"test","path":"/metadata/finalizers","value":["kgc.test/hold","kgc.test/other"]},` +
		`{"op":"replace","path":"/metadata/finalizers","value":["kgc.test/hold"]}]`
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Patch(ctx, "held", types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	res := env.RunKGC(t, "apply", why, "--remedy", "remove-finalizer:configmap:"+ns+"/held:kgc.test/hold", "--yes", "-o", "json")
	rep := decodeApplyReport(t, res, 4)
	if rep.Outcome != "refused" || rep.Refusal == nil || rep.Refusal.Reason != "stale" || len(rep.Requests) != 0 {
		t.Fatalf("outcome %s, refusal %+v, requests %+v; want refused as stale, nothing sent", rep.Outcome, rep.Refusal, rep.Requests)
	}
	want := "finalizers were [kgc.test/hold kgc.test/other] when reviewed, now [kgc.test/hold]"
	if !strings.Contains(string(res.Stdout), want) {
		t.Errorf("the report does not say %q:\n%s", want, res.Stdout)
	}
	cm, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, "held", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("real control plane: the ConfigMap is gone after a refused remedy: %v", err)
	}
	if !slices.Equal(cm.Finalizers, []string{"kgc.test/hold"}) {
		t.Errorf("real control plane: finalizers %v, want kgc.test/hold kept", cm.Finalizers)
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// Exit codes of kgc apply (docs/reference/exit-codes.md).
const (
	applyExitStale        = 4
	applyExitOtherCluster = 5
	applyExitLimit        = 6
	applyExitNotConfirmed = 7
	applyExitTimedOut     = 9
	applyExitApplied      = 10
	applyExitInterrupted  = 11
)

// applyReport is the part of the ApplyReport document the tests read.
type applyReport struct {
	Kind     string `json:"kind"`
	Outcome  string `json:"outcome"`
	Identity string `json:"identity"`
	Refusal  *struct {
		Reason string `json:"reason"`
		Diff   []struct {
			Object  framework.ObjectRef `json:"object"`
			Planned string              `json:"planned"`
			Now     string              `json:"now"`
		} `json:"diff"`
	} `json:"refusal"`
	Requests []struct {
		Verb              string `json:"verb"`
		PropagationPolicy string `json:"propagationPolicy"`
		Status            int    `json:"status"`
		AuditID           string `json:"auditID"`
		DryRun            bool   `json:"dryRun"`
		Preconditions     struct {
			UID             string `json:"uid"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"preconditions"`
	} `json:"requests"`
	Objects []struct {
		Object   framework.ObjectRef `json:"object"`
		Result   string              `json:"result"`
		WhyStuck string              `json:"whyStuck"`
	} `json:"objects"`
	Backup *struct {
		Files []string `json:"files"`
	} `json:"backup"`
}

// applyCase is a ConfigMap owner with two Secrets depending on it.
type applyCase struct {
	env   *framework.Env
	ns    string
	names []string // owner first
}

func newApplyCase(t *testing.T, prefix string) *applyCase {
	env := framework.Setup(t)
	t.Parallel()
	return newApplyCaseIn(t, env, prefix)
}

// newApplyCaseIn builds the case on env's control plane.
func newApplyCaseIn(t *testing.T, env *framework.Env, prefix string) *applyCase {
	ctx := context.Background()
	c := &applyCase{env: env, ns: env.Namespace(t, ctx, prefix)}
	owner := env.MustCreate(t, ctx, framework.ConfigMaps, framework.Obj("v1", "ConfigMap", c.ns, "owner"))
	for _, name := range []string{"dep-a", "dep-b"} {
		dep := framework.Obj("v1", "Secret", c.ns, name)
		dep.SetOwnerReferences([]metav1.OwnerReference{framework.Ref(owner, nil, nil)})
		env.MustCreate(t, ctx, framework.Secrets, dep)
	}
	c.names = []string{"owner", "dep-a", "dep-b"}
	return c
}

// plan runs kgc plan delete on the owner and returns the plan file.
func (c *applyCase) plan(t *testing.T, extra ...string) string {
	t.Helper()
	out := c.env.KGC(t, append([]string{"plan", "delete", "cm/owner", "-n", c.ns, "--cascade=background", "-o", "json"}, extra...)...)
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// apply runs kgc apply, requires the exit code and decodes the report.
func (c *applyCase) apply(t *testing.T, wantCode int, args ...string) applyReport {
	t.Helper()
	return decodeApplyReport(t, c.env.RunKGC(t, append([]string{"apply"}, append(args, "-o", "json")...)...), wantCode)
}

// decodeApplyReport requires kgc apply's exit code and decodes its report.
func decodeApplyReport(t *testing.T, res framework.KGCResult, wantCode int) applyReport {
	t.Helper()
	if res.ExitCode != wantCode {
		t.Fatalf("want exit %d: %s", wantCode, res)
	}
	var rep applyReport
	if err := json.Unmarshal(res.Stdout, &rep); err != nil || rep.Kind != "ApplyReport" {
		t.Fatalf("stdout is not an ApplyReport (%v): %s", err, res)
	}
	t.Logf("%s", res)
	return rep
}

// exist reports which of the case's objects exist on the real cluster.
func (c *applyCase) exist(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	check := func(name string, err error) {
		switch {
		case err == nil:
			out = append(out, name)
		case !apierrors.IsNotFound(err):
			t.Fatalf("reading %s: %v", name, err)
		}
	}
	_, err := c.env.Client.CoreV1().ConfigMaps(c.ns).Get(ctx, "owner", metav1.GetOptions{})
	check("owner", err)
	for _, n := range c.names[1:] {
		_, err := c.env.Client.CoreV1().Secrets(c.ns).Get(ctx, n, metav1.GetOptions{})
		check(n, err)
	}
	return out
}

func (c *applyCase) requireUntouched(t *testing.T) {
	t.Helper()
	if got := c.exist(t); strings.Join(got, ",") != strings.Join(c.names, ",") {
		t.Fatalf("real control plane: after a refused apply only %v exist, want all of %v", got, c.names)
	}
}

// TestApplyBackgroundAsPlanned: a planned background cascade, applied,
// ends as planned and the objects are gone.
func TestApplyBackgroundAsPlanned(t *testing.T) {
	c := newApplyCase(t, "apply-bg")
	path := c.plan(t)
	rep := c.apply(t, 0, path, "--yes", "--timeout", "90s")
	if rep.Outcome != "as-planned" || len(rep.Objects) != 3 {
		t.Fatalf("outcome %s with %d objects, want as-planned with 3", rep.Outcome, len(rep.Objects))
	}
	for _, o := range rep.Objects {
		if o.Result != "as-planned" {
			t.Errorf("%s: %s, want as-planned", o.Object, o.Result)
		}
	}
	if len(rep.Requests) != 1 || rep.Requests[0].Verb != "DELETE" || rep.Requests[0].Status != 200 ||
		rep.Requests[0].Preconditions.UID == "" || rep.Requests[0].Preconditions.ResourceVersion == "" {
		t.Errorf("requests %+v, want one DELETE with uid and resourceVersion preconditions, 200", rep.Requests)
	}
	if rep.Identity == "" {
		t.Errorf("the report does not say who sent the DELETE (SelfSubjectReview)")
	}
	if got := c.exist(t); len(got) != 0 {
		t.Errorf("real control plane: %v still exist after an as-planned background apply", got)
	}
	// A plan is used once: applied again, it is refused as already
	// applied, not as stale.
	again := c.apply(t, applyExitApplied, path, "--yes")
	if again.Refusal == nil || again.Refusal.Reason != "already-applied" || len(again.Requests) != 0 {
		t.Errorf("second apply: refusal %+v, %d requests; want already-applied before any request", again.Refusal, len(again.Requests))
	}
	t.Logf("%s", c.env.RunKGC(t, "apply", path, "--yes"))
}

// TestApplyBackup: --backup writes the planned objects, read in full from
// the real API server, before the DELETE; they are then gone from the
// cluster but not from the backup.
func TestApplyBackup(t *testing.T) {
	c := newApplyCase(t, "apply-backup")
	dir := t.TempDir()
	rep := c.apply(t, 0, c.plan(t), "--yes", "--backup", dir, "--timeout", "90s")
	want := "configmap_owner.yaml,secret_dep-a.yaml,secret_dep-b.yaml"
	var got []string
	if rep.Backup != nil {
		for _, f := range rep.Backup.Files {
			got = append(got, filepath.Base(f))
		}
	}
	if strings.Join(got, ",") != want {
		t.Fatalf("backup files %v, want %s", got, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, c.ns, "configmap_owner.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); !strings.Contains(s, "name: owner") || !strings.Contains(s, "resourceVersion:") || strings.Contains(s, "managedFields") {
		t.Errorf("backup of the ConfigMap:\n%s", s)
	}
	if left := c.exist(t); len(left) != 0 {
		t.Errorf("real control plane: %v still exist", left)
	}
}

// TestApplyStep: --step deletes each Secret, then the owner, each with
// its own preconditions, and the real cluster ends as planned.
func TestApplyStep(t *testing.T) {
	c := newApplyCase(t, "apply-step")
	rep := c.apply(t, 0, c.plan(t), "--yes", "--step", "--timeout", "60s")
	if rep.Outcome != "as-planned" || len(rep.Requests) != 3 {
		t.Fatalf("outcome %s, %d requests; want as-planned after three DELETEs", rep.Outcome, len(rep.Requests))
	}
	for i, r := range rep.Requests {
		if r.Verb != "DELETE" || r.Status != 200 || r.Preconditions.UID == "" || r.Preconditions.ResourceVersion == "" {
			t.Errorf("request %d: %+v, want a DELETE with uid and resourceVersion preconditions, 200", i, r)
		}
	}
	if left := c.exist(t); len(left) != 0 {
		t.Errorf("real control plane: %v still exist", left)
	}
}

// TestApplyStaleTargetRelabelled: the target changes after planning; the
// plan is refused as stale and nothing is deleted.
func TestApplyStaleTargetRelabelled(t *testing.T) {
	c := newApplyCase(t, "apply-stale")
	path := c.plan(t)
	ctx := context.Background()
	cm, err := c.env.Client.CoreV1().ConfigMaps(c.ns).Get(ctx, "owner", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Labels = map[string]string{"relabelled": "yes"}
	if _, err := c.env.Client.CoreV1().ConfigMaps(c.ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	rep := c.apply(t, applyExitStale, path, "--yes")
	if rep.Refusal == nil || rep.Refusal.Reason != "stale" || len(rep.Requests) != 0 {
		t.Errorf("refusal %+v, %d requests; want stale before any request", rep.Refusal, len(rep.Requests))
	}
	c.requireUntouched(t)
}

// TestApplyStaleNewDependent: a dependent created after planning makes
// the plan stale, and the refusal names it.
func TestApplyStaleNewDependent(t *testing.T) {
	c := newApplyCase(t, "apply-newdep")
	path := c.plan(t)
	ctx := context.Background()
	owner, err := c.env.Dynamic.Resource(framework.ConfigMaps).Namespace(c.ns).Get(ctx, "owner", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	late := framework.Obj("v1", "Secret", c.ns, "dep-late")
	late.SetOwnerReferences([]metav1.OwnerReference{framework.Ref(owner, nil, nil)})
	c.env.MustCreate(t, ctx, framework.Secrets, late)
	c.names = append(c.names, "dep-late")
	rep := c.apply(t, applyExitStale, path, "--yes")
	if rep.Refusal == nil || len(rep.Refusal.Diff) != 1 || rep.Refusal.Diff[0].Object.Name != "dep-late" || rep.Refusal.Diff[0].Now != "deleted" ||
		rep.Refusal.Diff[0].Planned != "not-in-plan" {
		t.Errorf("refusal %+v, want stale with the new dependent, not in the plan, newly deleted", rep.Refusal)
	}
	c.requireUntouched(t)
}

// TestApplyMaxDeletions: a cap below the plan refuses before any request.
func TestApplyMaxDeletions(t *testing.T) {
	c := newApplyCase(t, "apply-cap")
	rep := c.apply(t, applyExitLimit, c.plan(t), "--yes", "--max-deletions", "2")
	if rep.Refusal == nil || rep.Refusal.Reason != "max-deletions" || len(rep.Requests) != 0 {
		t.Errorf("refusal %+v, %d requests; want max-deletions before any request", rep.Refusal, len(rep.Requests))
	}
	c.requireUntouched(t)
}

// TestApplyNotConfirmed: no terminal and no --yes refuses.
func TestApplyNotConfirmed(t *testing.T) {
	c := newApplyCase(t, "apply-noconfirm")
	rep := c.apply(t, applyExitNotConfirmed, c.plan(t))
	if rep.Refusal == nil || rep.Refusal.Reason != "not-confirmed" || len(rep.Requests) != 0 {
		t.Errorf("refusal %+v, %d requests; want not-confirmed before any request", rep.Refusal, len(rep.Requests))
	}
	c.requireUntouched(t)
}

// TestApplyServerDryRun: the API server checks the DELETE and nothing is
// deleted.
func TestApplyServerDryRun(t *testing.T) {
	c := newApplyCase(t, "apply-dryrun")
	rep := c.apply(t, 0, c.plan(t), "--yes", "--dry-run=server")
	if rep.Outcome != "dry-run-accepted" || len(rep.Requests) != 1 || !rep.Requests[0].DryRun || rep.Requests[0].Status != 200 {
		t.Errorf("outcome %s, requests %+v; want one accepted dry-run DELETE", rep.Outcome, rep.Requests)
	}
	c.requireUntouched(t)
}

// TestApplyPlanFromDump: a plan made offline from a snapshot file is
// refused, whatever cluster it is applied to.
func TestApplyPlanFromDump(t *testing.T) {
	c := newApplyCase(t, "apply-dump")
	snap := filepath.Join(t.TempDir(), "snap.json")
	c.env.KGC(t, "snapshot", "--output-file", snap)
	rep := c.apply(t, applyExitOtherCluster, c.plan(t, "-f", snap), "--yes")
	if rep.Refusal == nil || rep.Refusal.Reason != "other-cluster" || len(rep.Requests) != 0 {
		t.Errorf("refusal %+v, %d requests; want other-cluster before any request", rep.Refusal, len(rep.Requests))
	}
	c.requireUntouched(t)
}

// TestApplyDeleteOneGo: kgc apply delete plans and applies in one go.
func TestApplyDeleteOneGo(t *testing.T) {
	c := newApplyCase(t, "apply-delete")
	rep := c.apply(t, 0, "delete", "cm/owner", "-n", c.ns, "--cascade=foreground", "--yes", "--timeout", "90s")
	if rep.Outcome != "as-planned" {
		t.Fatalf("outcome %s, want as-planned", rep.Outcome)
	}
	if got := c.exist(t); len(got) != 0 {
		t.Errorf("real control plane: %v still exist after a foreground apply", got)
	}
}

// TestApplyOrphanAsPlanned: an orphaning apply keeps the dependents and
// removes their owner references, as planned.
func TestApplyOrphanAsPlanned(t *testing.T) {
	c := newApplyCase(t, "apply-orphan")
	path := filepath.Join(t.TempDir(), "plan.json")
	out := c.env.KGC(t, "plan", "delete", "cm/owner", "-n", c.ns, "--cascade=orphan", "-o", "json")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	rep := c.apply(t, 0, path, "--yes", "--timeout", "90s")
	if rep.Outcome != "as-planned" {
		t.Fatalf("outcome %s, want as-planned", rep.Outcome)
	}
	if got := c.exist(t); strings.Join(got, ",") != "dep-a,dep-b" {
		t.Errorf("real control plane: %v exist after an orphaning apply, want the two dependents", got)
	}
	s, err := c.env.Client.CoreV1().Secrets(c.ns).Get(context.Background(), "dep-a", metav1.GetOptions{})
	if err != nil || len(s.OwnerReferences) != 0 {
		t.Errorf("real control plane: dep-a owner references %v (%v), want none", s.GetOwnerReferences(), err)
	}
}

// TestApplyStaleTargetRecreated: the target deleted and re-created with
// the same name is another object: refused, and the new one is untouched.
func TestApplyStaleTargetRecreated(t *testing.T) {
	c := newApplyCase(t, "apply-recreate")
	path := c.plan(t)
	ctx := context.Background()
	orphan := metav1.DeletePropagationOrphan
	if err := c.env.Client.CoreV1().ConfigMaps(c.ns).Delete(ctx, "owner", metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	// The orphan finalizer holds the old owner until the collector has
	// removed the references; only then can the name be used again.
	waitOwnerGone(t, ctx, c)
	c.env.MustCreate(t, ctx, framework.ConfigMaps, framework.Obj("v1", "ConfigMap", c.ns, "owner"))
	rep := c.apply(t, applyExitStale, path, "--yes")
	if rep.Refusal == nil || rep.Refusal.Reason != "stale" || len(rep.Requests) != 0 {
		t.Errorf("refusal %+v, %d requests; want stale before any request", rep.Refusal, len(rep.Requests))
	}
	c.requireUntouched(t)
}

// TestApplyPredictedToHang: a plan that leaves a held dependent
// terminating is refused unless --allow-blocked, and then ends as
// planned: the dependent terminating, held by its finalizer.
func TestApplyPredictedToHang(t *testing.T) {
	c := newApplyCase(t, "apply-hang")
	ctx := context.Background()
	s, err := c.env.Client.CoreV1().Secrets(c.ns).Get(ctx, "dep-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Finalizers = []string{"kgc.dev/hold"}
	if _, err := c.env.Client.CoreV1().Secrets(c.ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { releaseHold(t, c, "dep-a") })
	path := c.plan(t)
	rep := c.apply(t, applyExitLimit, path, "--yes")
	if rep.Refusal == nil || rep.Refusal.Reason != "blocked" || len(rep.Requests) != 0 {
		t.Fatalf("refusal %+v, %d requests; want blocked before any request", rep.Refusal, len(rep.Requests))
	}
	c.requireUntouched(t)
	rep = c.apply(t, 0, path, "--yes", "--allow-blocked", "--timeout", "90s")
	if rep.Outcome != "as-planned" {
		t.Fatalf("outcome %s, want as-planned", rep.Outcome)
	}
	if got := c.exist(t); strings.Join(got, ",") != "dep-a" {
		t.Errorf("real control plane: %v exist, want only the held dep-a", got)
	}
}

func waitOwnerGone(t *testing.T, ctx context.Context, c *applyCase) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := c.env.Client.CoreV1().ConfigMaps(c.ns).Get(ctx, "owner", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("real control plane: the orphaned owner was not deleted: %v", err)
	}
}

// releaseHold removes the test's finalizer so that the namespace can go.
func releaseHold(t *testing.T, c *applyCase, name string) {
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	_, err := c.env.Client.CoreV1().Secrets(c.ns).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Logf("releasing %s: %v", name, err)
	}
}

// TestApplyConfirmDigest: --confirm with the digest kgc plan printed
// approves that plan; --timeout=0 sends the DELETE and returns.
func TestApplyConfirmDigest(t *testing.T) {
	c := newApplyCase(t, "apply-confirm")
	path := c.plan(t)
	var doc struct {
		Digest string `json:"digest"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil || !strings.HasPrefix(doc.Digest, "sha256:") {
		t.Fatalf("plan digest %q (%v)", doc.Digest, err)
	}
	rep := c.apply(t, applyExitNotConfirmed, path, "--confirm", "sha256:0000")
	if len(rep.Requests) != 0 {
		t.Fatalf("a wrong --confirm sent %d requests", len(rep.Requests))
	}
	c.requireUntouched(t)
	rep = c.apply(t, 0, path, "--confirm", doc.Digest, "--timeout", "0")
	if rep.Outcome != "sent" || len(rep.Requests) != 1 || len(rep.Objects) != 0 {
		t.Errorf("outcome %s, %d requests, %d objects; want sent, one DELETE, not followed", rep.Outcome, len(rep.Requests), len(rep.Objects))
	}
	err = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return len(c.exist(t)) == 0, nil
	})
	if err != nil {
		t.Errorf("real control plane: %v still exist after the applied delete", c.exist(t))
	}
}

// TestApplyForegroundAsPlanned: a planned foreground cascade, applied,
// ends as planned: the dependents go first, then the owner.
func TestApplyForegroundAsPlanned(t *testing.T) {
	c := newApplyCase(t, "apply-fg")
	path := c.plan(t, "--cascade=foreground")
	rep := c.apply(t, 0, path, "--yes", "--timeout", "90s")
	if rep.Outcome != "as-planned" || len(rep.Objects) != 3 {
		t.Fatalf("outcome %s with %d objects, want as-planned with 3", rep.Outcome, len(rep.Objects))
	}
	if len(rep.Requests) != 1 || rep.Requests[0].Status != 200 || rep.Requests[0].PropagationPolicy != "Foreground" {
		t.Errorf("requests %+v, want one accepted DELETE with propagationPolicy Foreground", rep.Requests)
	}
	if got := c.exist(t); len(got) != 0 {
		t.Errorf("real control plane: %v still exist after an as-planned foreground apply", got)
	}
}

// TestApplyPlanFromAnotherCluster: a plan made live on one cluster is
// refused on another before any request, and nothing changes on either.
func TestApplyPlanFromAnotherCluster(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	other := shared.Dedicated(t)
	c := newApplyCaseIn(t, other, "apply-elsewhere")
	path := c.plan(t)
	here := &applyCase{env: shared, ns: c.ns}
	rep := here.apply(t, applyExitOtherCluster, path, "--yes")
	if rep.Refusal == nil || rep.Refusal.Reason != "other-cluster" || len(rep.Requests) != 0 {
		t.Errorf("refusal %+v, %d requests; want other-cluster before any request", rep.Refusal, len(rep.Requests))
	}
	c.requireUntouched(t)
}

package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// The post-mortem tests delete for real, as named users (impersonated with
// the admin token, which a real cluster's audit log records the same way),
// and hold `kgc postmortem`'s reconstruction, read from the API server's
// own audit log, against what the test did and what the controllers' own
// requests in that log say: every object that went is under the user's
// request, with the controller that removed it.

// pmUserAgent is the user agent of the tests' deletes.
const pmUserAgent = "kgc-e2e-postmortem"

// fakeSecret is the value of every Secret the post-mortem tests create:
// the RequestResponse audit log holds it (in the create's request and
// response, and in the delete's response), and no kgc output may.
const fakeSecret = "hunter2"

// actAs returns a dynamic client acting as user, whom a ClusterRoleBinding
// makes cluster-admin, once the authorizer knows it.
func actAs(t testing.TB, ctx context.Context, env *framework.Env, user string) dynamic.Interface {
	t.Helper()
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "kgc-e2e-postmortem-" + user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := env.Client.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("binding cluster-admin to %s: %v", user, err)
	}
	dyn, err := dynamic.NewForConfig(asUser(env, user))
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(framework.Namespaces).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("%s may still not list namespaces: %v", user, err)
	}
	return dyn
}

// asUser is the admin's client configuration impersonating user, with the
// post-mortem tests' user agent.
func asUser(env *framework.Env, user string) *rest.Config {
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	cfg.UserAgent = pmUserAgent
	return cfg
}

// pmCase is one real deletion and what the test saw of it.
type pmCase struct {
	env  *framework.Env
	user string
	// target is deleted with policy ("" sends no propagationPolicy).
	gvr      schema.GroupVersionResource
	ns, name string
	policy   string
	// typeArg is the TYPE of TYPE/NAME for kgc (plan, postmortem).
	typeArg string
	scope   framework.Scope
	quiet   time.Duration
	// metadataLevel: the plane logs at Metadata level only.
	metadataLevel bool

	dir                   string
	target                framework.ObjState
	before, after         map[string]framework.ObjState
	beforeFile, afterFile string
	from, to              time.Time
	// events are the audit events of [from, to]; windowLog holds them.
	events    []framework.AuditEvent
	windowLog string
}

// run snapshots, deletes as the user, waits until the target is gone and
// everything settled, and snapshots again.
func (c *pmCase) run(t *testing.T, ctx context.Context) {
	t.Helper()
	if c.quiet == 0 {
		c.quiet = 3 * time.Second
	}
	c.dir = keptDir(t)
	c.beforeFile = filepath.Join(c.dir, "before.json")
	c.afterFile = filepath.Join(c.dir, "after.json")
	as := actAs(t, ctx, c.env, c.user)
	var err error
	if c.before, err = c.env.Settle(ctx, c.scope, c.quiet, 3*time.Minute); err != nil {
		t.Fatalf("before the delete: %v", err)
	}
	obj, err := c.env.Dynamic.Resource(c.gvr).Namespace(c.ns).Get(ctx, c.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.target = framework.StateOf(c.gvr, obj)
	c.before[c.target.UID] = c.target
	c.env.KGC(t, "snapshot", "--output-file", c.beforeFile)
	c.from = time.Now().Add(-time.Second)
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptrTo(types.UID(c.target.UID))}}
	if c.policy != "" {
		p := metav1.DeletionPropagation(c.policy)
		opts.PropagationPolicy = &p
	}
	if err := as.Resource(c.gvr).Namespace(c.ns).Delete(ctx, c.name, opts); err != nil {
		t.Fatalf("%s deleting %s %s/%s: %v", c.user, c.gvr.Resource, c.ns, c.name, err)
	}
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := c.env.Dynamic.Resource(c.gvr).Namespace(c.ns).Get(ctx, c.name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("real control plane: %s %s/%s still there 3m after the delete: %v", c.gvr.Resource, c.ns, c.name, err)
	}
	if c.after, err = c.env.Settle(ctx, c.scope, c.quiet, 3*time.Minute); err != nil {
		t.Fatalf("after the delete: %v", err)
	}
	c.env.KGC(t, "snapshot", "--output-file", c.afterFile)
	c.to = time.Now().Add(time.Second)
	files, err := c.env.CP.AuditLogFiles()
	if err != nil {
		t.Fatal(err)
	}
	all, err := framework.ReadAuditLog(files...)
	if err != nil {
		t.Fatal(err)
	}
	c.events = framework.AuditWindow(all, c.from, c.to)
	c.windowLog = filepath.Join(c.dir, "audit.log")
	if err := framework.WriteAuditLog(c.windowLog, c.events); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s deleted %s %s/%s: %d audit events in the window, %d objects before, %d after", c.user, c.gvr.Resource, c.ns, c.name, len(c.events), len(c.before), len(c.after))
}

func ptrTo[T any](v T) *T { return &v }

// keptDir is a directory for a case's snapshots and logs, removed when the
// test passes and kept (its path logged) when it fails, so that kgc can be
// run on them again by hand.
func keptDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kgc-e2e-postmortem-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("snapshots and audit log window kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

// gone are the UIDs of the objects the test saw go; orphaned those that
// stayed but lost an owner reference.
func (c *pmCase) gone() (gone, orphaned []string) {
	for uid, b := range c.before {
		a, ok := c.after[uid]
		switch {
		case !ok:
			gone = append(gone, uid)
		case len(a.OwnerUIDs) < len(b.OwnerUIDs):
			orphaned = append(orphaned, uid)
		}
	}
	slices.Sort(gone)
	slices.Sort(orphaned)
	return gone, orphaned
}

// postmortem runs kgc postmortem with args and the case's snapshots, as
// JSON, and checks that no output holds the fake secret.
func (c *pmCase) postmortem(t *testing.T, args ...string) (framework.PostMortem, []byte) {
	t.Helper()
	args = append(append([]string{"postmortem"}, args...), "--before", c.beforeFile, "--after", c.afterFile, "-o", "json")
	res := c.env.RunKGC(t, args...)
	requireNoSecret(t, res)
	if res.ExitCode != 0 {
		t.Fatalf("%s", res)
	}
	c.requireSameInParts(t, args)
	var pm framework.PostMortem
	if err := json.Unmarshal(res.Stdout, &pm); err != nil {
		t.Fatalf("decoding: %v\n%s", err, res)
	}
	if pm.APIVersion != "kgc.dev/v1alpha1" || pm.Kind != "PostMortem" {
		t.Errorf("document is %s %s, want kgc.dev/v1alpha1 PostMortem", pm.APIVersion, pm.Kind)
	}
	return pm, res.Stdout
}

// requireSameInParts: the log read a namespace at a time, as a log too
// big to hold is (--spill-after 1), gives the same document as held
// whole. Both read a copy of the audit logs: the plane's own log grows
// while the tests run. A difference keeps both documents and the logs, to
// run kgc on again by hand.
func (c *pmCase) requireSameInParts(t *testing.T, args []string) {
	t.Helper()
	dir := keptDir(t)
	frozen := slices.Clone(args)
	for i, a := range frozen {
		if i == 0 || frozen[i-1] != "--audit-log" {
			continue
		}
		data, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		frozen[i] = filepath.Join(dir, fmt.Sprintf("audit-%d-%s", i, filepath.Base(a)))
		if err := os.WriteFile(frozen[i], data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	whole := c.env.RunKGC(t, frozen...)
	parts := c.env.RunKGC(t, append(frozen, "--spill-after", "1")...)
	if whole.ExitCode != 0 || parts.ExitCode != 0 {
		t.Fatalf("held whole: %s\na part at a time: %s", whole, parts)
	}
	if !bytes.Equal(whole.Stdout, parts.Stdout) {
		_ = os.WriteFile(filepath.Join(dir, "whole.json"), whole.Stdout, 0o600)
		_ = os.WriteFile(filepath.Join(dir, "parts.json"), parts.Stdout, 0o600)
		t.Errorf("analyzed a part at a time (--spill-after 1), the document differs (kgc %s):\n%s", strings.Join(frozen, " "),
			strings.Join(jsonDiff(json.RawMessage(whole.Stdout), json.RawMessage(parts.Stdout)), "\n"))
	}
}

// requireNoSecret fails when the fake Secret value, or its base64 form,
// reaches kgc's stdout or stderr.
func requireNoSecret(t *testing.T, res framework.KGCResult) {
	t.Helper()
	for _, s := range []string{fakeSecret, "aHVudGVyMg"} {
		if bytes.Contains(res.Stdout, []byte(s)) || bytes.Contains(res.Stderr, []byte(s)) {
			t.Errorf("the Secret's value %q is in kgc's output:\n%s", s, res)
		}
	}
}

// logArgs are --audit-log flags for files.
func logArgs(files ...string) []string {
	var out []string
	for _, f := range files {
		out = append(out, "--audit-log", f)
	}
	return out
}

// root finds the case's root request in pm: the delete of the target.
func (c *pmCase) root(t *testing.T, pm framework.PostMortem, raw []byte) framework.PMRoot {
	t.Helper()
	r, n := c.findRoot(pm)
	if n != 1 {
		t.Fatalf("want one root: %s deleting %s %s/%s; got %d\n%s", c.user, c.gvr.Resource, c.ns, c.name, n, raw)
	}
	return r
}

// findRoot returns the case's root in pm (the delete of the target; that
// it is the user's, checkRequest requires), and how many pm has.
func (c *pmCase) findRoot(pm framework.PostMortem) (framework.PMRoot, int) {
	var found []framework.PMRoot
	for _, r := range pm.Roots {
		q := r.Request
		if q.Object.Name == c.name && q.Object.Namespace == c.ns && q.Verb == "delete" {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		return framework.PMRoot{}, 0
	}
	return found[0], len(found)
}

// linkAt is a link of a cascade with its parent.
type linkAt struct {
	link, parent *framework.PMLink
}

func linksByUID(cascade []framework.PMLink) map[string][]linkAt {
	out := map[string][]linkAt{}
	framework.Walk(cascade, nil, func(l, parent *framework.PMLink) {
		out[l.Object.UID] = append(out[l.Object.UID], linkAt{l, parent})
	})
	return out
}

// check holds pm's reconstruction of the case against what happened:
// the root request, and every object that went or was orphaned in its
// cascade with the actor the audit log names.
func (c *pmCase) check(t *testing.T, pm framework.PostMortem, raw []byte) framework.PMRoot {
	t.Helper()
	r := c.root(t, pm, raw)
	c.checkRequest(t, r.Request)
	links := linksByUID(r.Cascade)
	if len(r.Cascade) == 0 || r.Cascade[0].Object.UID != c.target.UID {
		t.Errorf("the cascade's first link is not the root object %s (uid %s)", c.name, c.target.UID)
	} else if l := r.Cascade[0]; l.Via != "root" || l.Result != "deleted" || l.Actor != "user" || l.User != c.user {
		t.Errorf("root link: via %q result %q actor %q user %q, want root deleted by user %s (the name it acted as)", l.Via, l.Result, l.Actor, l.User, c.user)
	}
	for uid, at := range links {
		if b, ok := c.before[uid]; ok {
			if o := at[0].link.Object; o.Kind != b.Kind || o.APIVersion != b.GVR.GroupVersion().String() || o.Name != b.Name || o.Namespace != b.Namespace {
				t.Errorf("link of %s names the object %s %s", b, o.APIVersion, o)
			}
		}
	}
	kinds := map[string]bool{}
	for _, b := range c.before {
		kinds[b.Kind] = true
	}
	for _, k := range r.Summary.ByKind {
		if !kinds[k.Kind] {
			t.Errorf("summary.byKind counts %d %s: no object of the case is of that kind", k.Count, k.Kind)
		}
	}
	gone, orphaned := c.gone()
	removals := framework.Removals(c.events, c.before)
	deleted := 0
	for _, uid := range gone {
		b := c.before[uid]
		at, ok := links[uid]
		if !ok {
			t.Errorf("%s went but is not in the cascade of %s's request", b, c.user)
			continue
		}
		l := at[0]
		if l.link.Result != "deleted" {
			t.Errorf("%s went: result %q, want deleted", b, l.link.Result)
		}
		if uid == c.target.UID {
			continue
		}
		deleted++
		c.checkRemover(t, b, l, removals[uid])
	}
	for _, uid := range orphaned {
		b := c.before[uid]
		at, ok := links[uid]
		if !ok {
			t.Errorf("%s lost its owner reference but is not in the cascade of %s's request", b, c.user)
			continue
		}
		if l := at[0].link; l.Result != "orphaned" || l.Actor != "garbagecollector" || l.Via != "ownerReference" {
			t.Errorf("%s was orphaned by the garbage collector: link result %q actor %q via %q, want orphaned garbagecollector ownerReference", b, l.Result, l.Actor, l.Via)
		}
	}
	if r.Summary.Orphaned != len(orphaned) {
		t.Errorf("summary.orphaned %d, the test saw %d orphaned", r.Summary.Orphaned, len(orphaned))
	}
	if r.Summary.Deleted != deleted {
		t.Errorf("summary.deleted %d, the test saw %d objects go with the root object", r.Summary.Deleted, deleted)
	}
	c.checkEvidence(t, pm)
	return r
}

// checkLog runs kgc postmortem with sel on the plane's whole audit log
// and the case's snapshots, and checks the root and its prediction.
func (c *pmCase) checkLog(t *testing.T, sel ...string) framework.PMRoot {
	t.Helper()
	pm, raw := c.postmortem(t, append(sel, logArgs(mustFiles(t, c.env)...)...)...)
	r := c.check(t, pm, raw)
	c.checkPrediction(t, r)
	return r
}

// checkRequest: the root request is the user's, as sent.
func (c *pmCase) checkRequest(t *testing.T, q framework.PMRequest) {
	t.Helper()
	// The admin token impersonated the user: the authenticated user is
	// the admin, the impersonated one the case's.
	if q.User != "kgc-e2e-admin" || q.ImpersonatedUser != c.user {
		t.Errorf("request.user %q, impersonatedUser %q; the test sent it as kgc-e2e-admin impersonating %s", q.User, q.ImpersonatedUser, c.user)
	}
	if q.Actor != "user" {
		t.Errorf("request.actor %q, want user", q.Actor)
	}
	if q.UserAgent != pmUserAgent {
		t.Errorf("request.userAgent %q, want %q", q.UserAgent, pmUserAgent)
	}
	if q.Code < 200 || q.Code > 299 {
		t.Errorf("request.code %d, want the 2xx the API server answered", q.Code)
	}
	if q.AuditID == "" || q.Time == "" {
		t.Errorf("request without auditID or time: %+v", q)
	}
	if c.metadataLevel {
		if q.DeleteOptionsKnown || q.DeleteOptions != nil {
			t.Errorf("Metadata-level log: deleteOptionsKnown %v, deleteOptions %+v; want unknown, omitted", q.DeleteOptionsKnown, q.DeleteOptions)
		}
		return
	}
	if !q.DeleteOptionsKnown || q.DeleteOptions == nil {
		t.Errorf("RequestResponse log: deleteOptionsKnown %v, deleteOptions %+v; want known", q.DeleteOptionsKnown, q.DeleteOptions)
		return
	}
	if q.DeleteOptions.PropagationPolicy != c.policy {
		t.Errorf("request.deleteOptions.propagationPolicy %q, the test sent %q", q.DeleteOptions.PropagationPolicy, c.policy)
	}
	if q.DeleteOptions.Preconditions == nil || q.DeleteOptions.Preconditions.UID != c.target.UID {
		t.Errorf("request.deleteOptions.preconditions %+v, the test sent uid %s", q.DeleteOptions.Preconditions, c.target.UID)
	}
}

// checkRemover: the link of an object that went names the actor of the
// first request that removed it (the audit log's, read by the test), the
// right cause, and for a pod that its kubelet finished it.
func (c *pmCase) checkRemover(t *testing.T, b framework.ObjState, at linkAt, rm framework.Removal) {
	t.Helper()
	l := at.link
	want := rm.FirstActor()
	if want == "" && b.GVR.Group != "" && c.gvr == framework.CRDResource {
		want = "apiserver" // the instances of a deleted CRD go through storage
	}
	if l.Actor != want {
		t.Errorf("%s: actor %q, the audit log says %q (deletes by %v, collection by %q)", b, l.Actor, want, rm.Deletes, rm.Collection)
	}
	wantVia := map[string]string{"garbagecollector": "ownerReference", "namespace-controller": "namespace", "apiserver": "customResourceDefinition"}[want]
	if wantVia != "" && l.Via != wantVia {
		t.Errorf("%s removed by %s: via %q, want %q", b, want, l.Via, wantVia)
	}
	if l.Via == "ownerReference" && (at.parent == nil || !slices.Contains(b.OwnerUIDs, at.parent.Object.UID)) {
		t.Errorf("%s (owners %v) is under %v via ownerReference: not one of its owners", b, b.OwnerNames, at.parent)
	}
	if last := len(rm.Deletes) - 1; last > 0 && framework.Actor(rm.Deletes[last]) == "kubelet" {
		if !slices.ContainsFunc(l.Steps, func(s framework.PMStep) bool { return s.Actor == "kubelet" && s.Verb == "delete" }) {
			t.Errorf("%s: its node (%s) finished it, but no kubelet delete step: %+v", b, rm.Deletes[last], l.Steps)
		}
	}
	if l.Evidence == "" {
		t.Errorf("%s: link without evidence", b)
	}
}

// checkEvidence: a Metadata-level log holds no owner reference, so no
// ownerReference link may claim it as evidence; with --before and a
// RequestResponse log, no link is a guess from timing.
func (c *pmCase) checkEvidence(t *testing.T, pm framework.PostMortem) {
	t.Helper()
	for _, r := range pm.Roots {
		framework.Walk(r.Cascade, nil, func(l, _ *framework.PMLink) {
			if c.metadataLevel && l.Via == "ownerReference" && l.Evidence == "audit" {
				t.Errorf("Metadata-level log: %s via ownerReference has evidence audit; the log holds no owner reference", l.Object)
			}
			if !c.metadataLevel && l.Evidence == "timing" {
				t.Errorf("%s: evidence timing though the log has the bodies and the before snapshot was given", l.Object)
			}
		})
	}
}

// checkPrediction plans the root request on the before snapshot with kgc
// plan, and requires the post-mortem to call every object the plan
// predicted, and that went that way, as-predicted.
func (c *pmCase) checkPrediction(t *testing.T, r framework.PMRoot) {
	t.Helper()
	if r.Prediction == nil {
		t.Errorf("no prediction though --before was given")
		return
	}
	if r.Prediction.PolicyKnown == c.metadataLevel {
		t.Errorf("prediction.policyKnown %v on a %s-level log", r.Prediction.PolicyKnown, map[bool]string{true: "Metadata", false: "RequestResponse"}[c.metadataLevel])
	}
	cascade := strings.ToLower(c.policy)
	if cascade == "" {
		cascade = "default"
	}
	args := []string{"plan", "delete", c.typeArg + "/" + c.name, "--cascade=" + cascade, "-f", c.beforeFile, "-o", "json"}
	if c.ns != "" {
		args = append(args, "-n", c.ns)
	}
	var plan framework.Plan
	c.env.KGCJSON(t, &plan, args...)
	results := map[string]string{}
	for _, o := range r.Prediction.Objects {
		results[o.Object.UID] = o.Result
	}
	checked := 0
	for _, po := range plan.Objects {
		b, ok := c.before[po.Object.UID]
		if !ok || (po.Fate != "deleted" && po.Fate != "orphaned") {
			continue
		}
		_, stays := c.after[b.UID]
		if stays == !po.Final.Exists {
			continue // the plan missed it: not this check's business
		}
		checked++
		if got := results[b.UID]; got != "as-predicted" {
			t.Errorf("%s: kgc plan predicted %s and it happened; postmortem's prediction says %q", b, po.Fate, got)
		}
	}
	if checked == 0 {
		t.Errorf("the plan predicted nothing that happened: nothing to compare\n%s", plan.Raw)
	}
}

// sameRoot requires the root of another invocation (other files, other
// selection) to be the same as want.
func sameRoot(t *testing.T, what string, want framework.PMRoot, c *pmCase, pm framework.PostMortem, raw []byte) {
	t.Helper()
	got, n := c.findRoot(pm)
	if n != 1 {
		t.Errorf("%s: want one root: %s deleting %s %s/%s; got %d\n%s", what, c.user, c.gvr.Resource, c.ns, c.name, n, raw)
		return
	}
	if d := jsonDiff(want, got); len(d) > 0 {
		t.Errorf("%s: the root differs from the one read from the whole log:\n%s", what, strings.Join(d, "\n"))
	}
}

// jsonDiff lists, by JSON path, where a and b differ.
func jsonDiff(a, b any) []string {
	var av, bv any
	for _, p := range []struct {
		in  any
		out *any
	}{{a, &av}, {b, &bv}} {
		data, _ := json.Marshal(p.in)
		_ = json.Unmarshal(data, p.out)
	}
	var out []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		switch xv := x.(type) {
		case map[string]any:
			if yv, ok := y.(map[string]any); ok {
				keys := map[string]bool{}
				for k := range xv {
					keys[k] = true
				}
				for k := range yv {
					keys[k] = true
				}
				for _, k := range slices.Sorted(maps.Keys(keys)) {
					walk(path+"."+k, xv[k], yv[k])
				}
				return
			}
		case []any:
			if yv, ok := y.([]any); ok && len(xv) == len(yv) {
				for i := range xv {
					walk(fmt.Sprintf("%s[%d]", path, i), xv[i], yv[i])
				}
				return
			}
		}
		xs, _ := json.Marshal(x)
		ys, _ := json.Marshal(y)
		if !bytes.Equal(xs, ys) {
			out = append(out, fmt.Sprintf("  %s: want %s, got %s", path, clipJSON(xs), clipJSON(ys)))
		}
	}
	walk("root", av, bv)
	return out
}

func clipJSON(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// splitLog writes the window as two API servers of an HA pair would have
// written it: each request (all its stages) in one of two files.
func splitLog(t *testing.T, c *pmCase) (string, string) {
	t.Helper()
	var a, b []framework.AuditEvent
	for _, e := range c.events {
		h := fnv.New32a()
		h.Write([]byte(e.AuditID))
		if h.Sum32()%2 == 0 {
			a = append(a, e)
		} else {
			b = append(b, e)
		}
	}
	pa, pb := filepath.Join(c.dir, "apiserver-a.log"), filepath.Join(c.dir, "apiserver-b.log")
	if err := framework.WriteAuditLog(pa, a); err != nil {
		t.Fatal(err)
	}
	if err := framework.WriteAuditLog(pb, b); err != nil {
		t.Fatal(err)
	}
	return pa, pb
}

// checkText: the text output's summary line names the user, the verb and
// the object, and so does the -o html page (in the data its script draws
// the chains from), with no Secret value either.
func (c *pmCase) checkText(t *testing.T, kind string, args ...string) {
	t.Helper()
	args = append(append([]string{"postmortem"}, args...), "--before", c.beforeFile, "--after", c.afterFile)
	res := c.env.RunKGC(t, args...)
	requireNoSecret(t, res)
	want := fmt.Sprintf("deleted %s/%s", kind, c.name)
	if c.ns != "" {
		want += " -n " + c.ns
	}
	if res.ExitCode != 0 || !strings.Contains(string(res.Stdout), c.user) || !strings.Contains(string(res.Stdout), want) {
		t.Errorf("text output: want a summary line naming %s and %q\n%s", c.user, want, res)
	}
	page := c.env.RunKGC(t, append(args, "-o", "html")...)
	requireNoSecret(t, page)
	if page.ExitCode != 0 || !strings.HasPrefix(string(page.Stdout), "<!DOCTYPE html>") || !strings.Contains(string(page.Stdout), want) {
		t.Errorf("-o html: want a page naming %q\n%s", want, page)
	}
}

// TestPostMortemWorkloadDeployment: alice deletes a running Deployment in
// the background on the workload plane. The garbage collector deletes its
// ReplicaSet, then the pods, whose kubelets (kwok, as system:node:NAME)
// confirm their termination with the final DELETE.
func TestPostMortemWorkloadDeployment(t *testing.T) {
	env := framework.Setup(t).Workloads(t)
	t.Parallel()
	ctx := context.Background()
	ns := workloadNamespace(t, ctx, env, "pm-deploy")
	mkWorkload(t, ctx, env, "Deployment", ns, "web")
	waitRunningPods(t, ctx, env, ns, "web", workloadReplicas)
	c := &pmCase{env: env, user: "alice", gvr: deployments, ns: ns, name: "web", policy: "Background",
		typeArg: "deployment", scope: workloadScope(ns), quiet: workloadQuiet}
	c.run(t, ctx)
	gone, _ := c.gone()
	if len(gone) != 1+1+workloadReplicas {
		t.Fatalf("real control plane: want the Deployment, its ReplicaSet and %d pods gone; gone %v", workloadReplicas, gone)
	}
	requireKubeletFinished(t, c)
	c.checkLog(t, "-n", ns)
	c.checkText(t, "Deployment", append([]string{"-n", ns}, logArgs(c.windowLog)...)...)
}

// requireKubeletFinished: the premise of the workload case, read from the
// audit log: each pod's last DELETE came from a node.
func requireKubeletFinished(t *testing.T, c *pmCase) {
	t.Helper()
	removals := framework.Removals(c.events, c.before)
	for uid, b := range c.before {
		if b.Kind != "Pod" {
			continue
		}
		d := removals[uid].Deletes
		if len(d) < 2 || framework.Actor(d[0]) != "garbagecollector" || framework.Actor(d[len(d)-1]) != "kubelet" {
			t.Fatalf("real control plane: pod %s deleted by %v, want the garbage collector then its node", b.Name, d)
		}
	}
}

func mustFiles(t *testing.T, env *framework.Env) []string {
	t.Helper()
	files, err := env.CP.AuditLogFiles()
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestPostMortemNamespace: bob deletes a namespace holding ConfigMaps
// owned by another ConfigMap and by a custom resource, a Deployment with
// its ReplicaSet and pod (inert here), and a Secret. The namespace
// controller sweeps the content, collection by collection.
func TestPostMortemNamespace(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "pmns.e2e.kgc.dev", Kind: "Gadget", Plural: "gadgets", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "pm-ns")
	owner := mk(t, ctx, env, "ConfigMap", ns, "owner")
	mk(t, ctx, env, "ConfigMap", ns, "dep-1", owners(ref(owner, tr(), nil)))
	mk(t, ctx, env, "ConfigMap", ns, "dep-2", owners(ref(owner, nil, nil)))
	gadget := mkCR(t, ctx, env, crd, ns, "gadget")
	mk(t, ctx, env, "ConfigMap", ns, "gadget-settings", owners(ref(gadget, tr(), tr())))
	dep := mk(t, ctx, env, "Deployment", ns, "web")
	rs := mk(t, ctx, env, "ReplicaSet", ns, "web-1", owners(ref(dep, tr(), tr())))
	mk(t, ctx, env, "Pod", ns, "web-1-a", owners(ref(rs, tr(), tr())))
	mkSecret(t, ctx, env, ns, "credentials")
	c := &pmCase{env: env, user: "bob", gvr: framework.Namespaces, name: ns, typeArg: "namespace",
		scope: framework.Scope{Namespace: ns, Namespaced: []schema.GroupVersionResource{
			framework.ConfigMaps, framework.Secrets, framework.Pods, deployments, replicaSets, crd.GVR()}}}
	c.run(t, ctx)
	if gone, _ := c.gone(); len(gone) != 10 {
		t.Fatalf("real control plane: want the namespace and its 9 objects gone, gone %v", gone)
	}
	c.checkLog(t, "-n", ns)
	c.checkText(t, "Namespace", append([]string{"-n", ns}, logArgs(c.windowLog)...)...)
}

// mkSecret creates a Secret holding the fake secret value.
func mkSecret(t testing.TB, ctx context.Context, env *framework.Env, ns, name string, opts ...objOpt) *unstructured.Unstructured {
	t.Helper()
	u := framework.Obj("v1", "Secret", ns, name)
	u.Object["stringData"] = map[string]any{"password": fakeSecret}
	for _, o := range opts {
		o(u)
	}
	return env.MustCreate(t, ctx, framework.Secrets, u)
}

// TestPostMortemCRD: alice deletes a CRD with instances. The API server
// removes the instances through storage (no request, no audit event
// each), then the CRD, and its autoregister controller the APIService of
// the CRD's group version (a DELETE by system:apiserver). (No dependent of an instance: once the CRD is gone
// the garbage collector may no longer map the owner's kind, and then
// retries for ever rather than collecting it.)
func TestPostMortemCRD(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	crd := framework.CRD{Group: "pmcrd.e2e.kgc.dev", Kind: "Sprocket", Plural: "sprockets", Namespace: true}
	env.CreateCRD(t, ctx, crd)
	ns := env.Namespace(t, ctx, "pm-crd")
	for _, name := range []string{"first", "second", "third"} {
		mkCR(t, ctx, env, crd, ns, name)
	}
	scope := nsScope(ns, crd.GVR())
	scope.Cluster = append(scope.Cluster, apiServices)
	c := &pmCase{env: env, user: "alice", gvr: framework.CRDResource, name: crd.Plural + "." + crd.Group, policy: "Background",
		typeArg: "customresourcedefinition", scope: scope}
	c.run(t, ctx)
	c.keepOnly(apiServices, "v1."+crd.Group)
	if gone, _ := c.gone(); len(gone) != 5 {
		t.Fatalf("real control plane: want the CRD, its 3 instances and its group's APIService gone, gone %v", gone)
	}
	c.checkLog(t, "crd/"+c.name)
	pm, raw := c.postmortem(t, append([]string{"crd/" + c.name}, logArgs(c.windowLog)...)...)
	r := c.root(t, pm, raw)
	pm, raw = c.postmortem(t, append([]string{"-A"}, logArgs(c.windowLog)...)...)
	sameRoot(t, "-A on the window", r, c, pm, raw)
}

// keepOnly drops from the case's states the objects of gvr but the one
// named name: other tests' types have APIServices too.
func (c *pmCase) keepOnly(gvr schema.GroupVersionResource, name string) {
	for _, m := range []map[string]framework.ObjState{c.before, c.after} {
		for uid, o := range m {
			if o.GVR == gvr && o.Name != name {
				delete(m, uid)
			}
		}
	}
}

// ownerCase builds, in a fresh namespace named after prefix, an owner
// ConfigMap, two dependents (a Secret and a ConfigMap, blocking) and a
// grandchild owned by the ConfigMap, and returns the case of user deleting
// the owner with policy.
func ownerCase(t *testing.T, ctx context.Context, env *framework.Env, prefix, user, policy string) *pmCase {
	t.Helper()
	ns := env.Namespace(t, ctx, prefix)
	owner := mk(t, ctx, env, "ConfigMap", ns, "owner")
	mkSecret(t, ctx, env, ns, "child-secret", owners(ref(owner, tr(), nil)))
	child := mk(t, ctx, env, "ConfigMap", ns, "child", owners(ref(owner, tr(), tr())))
	mk(t, ctx, env, "ConfigMap", ns, "grandchild", owners(ref(child, tr(), nil)))
	return &pmCase{env: env, user: user, gvr: framework.ConfigMaps, ns: ns, name: "owner", policy: policy,
		typeArg: "configmap", scope: nsScope(ns, framework.ConfigMaps, framework.Secrets)}
}

// TestPostMortemForegroundOrphan: an owner with dependents and a
// grandchild deleted in the foreground by alice (and the same document
// read from -A, TYPE/NAME, a gzipped log and a log split between two API
// servers), and with orphan by bob.
func TestPostMortemForegroundOrphan(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	t.Run("Foreground", func(t *testing.T) {
		t.Parallel()
		c := ownerCase(t, ctx, env, "pm-fg", "alice", "Foreground")
		ns := c.ns
		c.run(t, ctx)
		if gone, _ := c.gone(); len(gone) != 4 {
			t.Fatalf("real control plane: want the owner, its 2 dependents and the grandchild gone, gone %v", gone)
		}
		c.checkLog(t, "-n", ns)

		// The same window, read in other ways, must give the same root
		// (the whole log holds more: the dependents' creation requests).
		pm, raw := c.postmortem(t, append([]string{"-n", ns}, logArgs(c.windowLog)...)...)
		r := c.root(t, pm, raw)
		pm, raw = c.postmortem(t, append([]string{"-A"}, logArgs(c.windowLog)...)...)
		sameRoot(t, "-A on the window", r, c, pm, raw)
		pm, raw = c.postmortem(t, append([]string{"configmap/owner", "-n", ns}, logArgs(c.windowLog)...)...)
		sameRoot(t, "configmap/owner", r, c, pm, raw)
		gz := c.windowLog + ".gz"
		if err := framework.WriteAuditLog(gz, c.events); err != nil {
			t.Fatal(err)
		}
		pm, raw = c.postmortem(t, append([]string{"-n", ns}, logArgs(gz)...)...)
		sameRoot(t, "the window gzipped", r, c, pm, raw)
		a, b := splitLog(t, c)
		pm, raw = c.postmortem(t, append([]string{"-n", ns}, logArgs(a, b)...)...)
		sameRoot(t, "window split between two API servers", r, c, pm, raw)
		if len(pm.Window.Files) != 2 {
			t.Errorf("two files read, window.files has %d", len(pm.Window.Files))
		}
		c.checkText(t, "ConfigMap", append([]string{"-n", ns}, logArgs(c.windowLog)...)...)
	})
	t.Run("Orphan", func(t *testing.T) {
		t.Parallel()
		c := ownerCase(t, ctx, env, "pm-orphan", "bob", "Orphan")
		c.run(t, ctx)
		gone, orphaned := c.gone()
		if len(gone) != 1 || len(orphaned) != 2 {
			t.Fatalf("real control plane: want the owner gone and its 2 dependents orphaned; gone %v, orphaned %v", gone, orphaned)
		}
		c.checkLog(t, "-n", c.ns)
	})
}

// TestPostMortemMetadataLevel: on a plane whose audit policy logs every
// request at Metadata level (no bodies), alice deletes an owner with
// dependents in the background. The delete's options and the owner
// references are not in the log: kgc must say the options are unknown
// and prove no ownerReference link from the log.
func TestPostMortemMetadataLevel(t *testing.T) {
	shared := framework.Setup(t)
	t.Parallel()
	env := shared.Dedicated(t, framework.WithAuditPolicy(framework.AuditMetadata))
	ctx := context.Background()
	c := ownerCase(t, ctx, env, "pm-meta", "alice", "Background")
	c.metadataLevel = true
	ns := c.ns
	c.run(t, ctx)
	if gone, _ := c.gone(); len(gone) != 4 {
		t.Fatalf("real control plane: want the owner, its 2 dependents and the grandchild gone, gone %v", gone)
	}
	for _, e := range c.events {
		if e.Level != "Metadata" || len(e.RequestObject) != 0 {
			t.Fatalf("real control plane: the Metadata-only policy logged %s %s at %s with a body", e.Verb, e.RequestURI, e.Level)
		}
	}
	c.checkLog(t, "-n", ns)
	// Without --before, nothing but the log: no owner reference is known
	// from evidence, so no link may claim audit or snapshot for one.
	res := env.RunKGC(t, append([]string{"postmortem", "-n", ns, "--after", c.afterFile, "-o", "json"}, logArgs(c.windowLog)...)...)
	if res.ExitCode != 0 {
		t.Fatalf("%s", res)
	}
	var bare framework.PostMortem
	if err := json.Unmarshal(res.Stdout, &bare); err != nil {
		t.Fatalf("decoding: %v\n%s", err, res)
	}
	for _, r := range bare.Roots {
		framework.Walk(r.Cascade, nil, func(l, _ *framework.PMLink) {
			if l.Via == "ownerReference" && (l.Evidence == "audit" || l.Evidence == "snapshot") {
				t.Errorf("Metadata-level log, no --before: %s via ownerReference claims evidence %q", l.Object, l.Evidence)
			}
		})
	}
}

// exampleDir is where the README's post-mortem example lives.
func exampleDir() string { return filepath.Join(framework.RepoRoot(), "examples-postmortem") }

// TestPostMortemWriteExample regenerates examples-postmortem/ (run it with
// KGC_E2E_WRITE_EXAMPLE=1): on the workload plane, alice deletes the
// namespace team-a holding a Deployment of 2 replicas, a ConfigMap and a
// Secret whose value is the fake "hunter2". It writes the audit log of the
// delete's window (events about team-a only, without the harness's own
// reads while it waited: the rest is noise to the example), and the
// snapshots before and after, all gzipped.
func TestPostMortemWriteExample(t *testing.T) {
	if os.Getenv("KGC_E2E_WRITE_EXAMPLE") == "" {
		t.Skip("set KGC_E2E_WRITE_EXAMPLE=1 to regenerate examples-postmortem/")
	}
	env := framework.Setup(t).Workloads(t)
	ctx := context.Background()
	const ns = "team-a"
	if err := env.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err == nil {
		t.Fatalf("namespace %s existed on the workload plane: run this test alone", ns)
	}
	mkNamed := framework.Obj("v1", "Namespace", "", ns)
	env.MustCreate(t, ctx, framework.Namespaces, mkNamed)
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mkWorkload(t, ctx, env, "Deployment", ns, "web")
	mk(t, ctx, env, "ConfigMap", ns, "web-settings")
	mkSecret(t, ctx, env, ns, "db-password")
	waitRunningPods(t, ctx, env, ns, "web", workloadReplicas)
	c := &pmCase{env: env, user: "alice", gvr: framework.Namespaces, name: ns, typeArg: "namespace", quiet: workloadQuiet,
		scope: framework.Scope{Namespace: ns, Namespaced: []schema.GroupVersionResource{
			framework.ConfigMaps, framework.Secrets, framework.Pods, deployments, replicaSets, serviceAccounts}}}
	c.run(t, ctx)
	var kept []framework.AuditEvent
	for _, e := range c.events {
		if r := e.ObjectRef; r != nil && (r.Namespace == ns || r.Resource == "namespaces" && r.Name == ns) && !harnessRead(e) {
			kept = append(kept, e)
		}
	}
	dir := exampleDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := framework.WriteAuditLog(filepath.Join(dir, "audit.log.gz"), kept); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{"before.json.gz": c.beforeFile, "after.json.gz": c.afterFile} {
		if err := gzipFile(src, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %s: %d audit events of %d in the window", dir, len(kept), len(c.events))
}

// harnessRead is a read the test harness sent while it waited for the
// objects to settle: noise in the example, which is about the delete.
func harnessRead(e framework.AuditEvent) bool {
	return e.ImpersonatedUser == nil && e.User.Username == "kgc-e2e-admin" && (e.Verb == "get" || e.Verb == "list" || e.Verb == "watch")
}

// gzipFile writes src gzipped to dst, with no name or time in the header
// (the same input gives the same bytes).
func gzipFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(dst, b.Bytes(), 0o644)
}

// TestPostMortemShippedExample reads the shipped example offline, as the
// README does: alice's request is the root, everything team-a held went
// with it, and the Secret's value, which is in the log, never reaches an
// output.
func TestPostMortemShippedExample(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	dir := exampleDir()
	logFile := filepath.Join(dir, "audit.log.gz")
	events, err := framework.ReadAuditLog(logFile)
	if err != nil {
		t.Fatalf("the shipped example (regenerate with KGC_E2E_WRITE_EXAMPLE=1 go test -run TestPostMortemWriteExample): %v", err)
	}
	if !slices.ContainsFunc(events, func(e framework.AuditEvent) bool {
		return bytes.Contains(e.Raw, []byte(fakeSecret)) || bytes.Contains(e.Raw, []byte("aHVudGVyMg"))
	}) {
		t.Fatalf("the example's audit log does not hold the Secret's value: it cannot prove kgc leaves it out")
	}
	base := []string{"postmortem", "-n", "team-a", "--audit-log", logFile, "--before", filepath.Join(dir, "before.json.gz"), "--after", filepath.Join(dir, "after.json.gz")}
	for _, format := range []string{"text", "json", "yaml", "dot", "html"} {
		res := env.RunKGC(t, append(base, "-o", format)...)
		requireNoSecret(t, res)
		if res.ExitCode != 0 {
			t.Errorf("%s", res)
		}
	}
	res := env.RunKGC(t, append(base, "-o", "json")...)
	var pm framework.PostMortem
	if err := json.Unmarshal(res.Stdout, &pm); err != nil {
		t.Fatalf("decoding: %v\n%s", err, res)
	}
	var root *framework.PMRoot
	for i, r := range pm.Roots {
		if r.Request.Object.Kind == "Namespace" && r.Request.Object.Name == "team-a" {
			root = &pm.Roots[i]
		}
	}
	if root == nil || (root.Request.User != "alice" && root.Request.ImpersonatedUser != "alice") {
		t.Fatalf("want alice's delete of Namespace team-a as a root\n%s", res.Stdout)
	}
	kinds := map[string]int{}
	framework.Walk(root.Cascade, nil, func(l, _ *framework.PMLink) {
		if l.Result == "deleted" {
			kinds[l.Object.Kind]++
		}
	})
	for kind, n := range map[string]int{"Namespace": 1, "Deployment": 1, "ReplicaSet": 1, "Pod": workloadReplicas, "Secret": 1} {
		if kinds[kind] < n {
			t.Errorf("want at least %d %s deleted under alice's request, got %d (%v)", n, kind, kinds[kind], kinds)
		}
	}
	if kinds["ConfigMap"] < 2 { // web-settings and kube-root-ca.crt
		t.Errorf("want web-settings and kube-root-ca.crt deleted under alice's request, got %v", kinds)
	}
}

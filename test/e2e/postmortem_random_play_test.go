package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// pmLabel marks a batch's cluster-scoped objects.
const pmLabel = "kgc-e2e/pmr"

// build creates the batch's namespaces, its CRD and the objects that exist
// before the window; the ones created in it wait for play.
func (b *pmBatch) build(t *testing.T, ctx context.Context, env *framework.Env) {
	t.Helper()
	for w := range b.Worlds {
		world := &b.Worlds[w]
		world.ns = b.mkNamespace(t, ctx, env, world.Namespace, fmt.Sprintf("pmr-%d-w%d", b.Seed, w))
		if world.Second >= 0 {
			world.ns2 = b.mkNamespace(t, ctx, env, world.Second, fmt.Sprintf("pmr-%d-w%dx", b.Seed, w))
		}
	}
	for i := range b.Objs {
		o := &b.Objs[i]
		switch {
		case o.Kind == kNamespace || o.Kind == kCRD || o.Kind == kAPIService:
		case o.Kind == kGadget || (o.Kind == kSprocket && b.CRDCluster):
			o.name = b.Worlds[o.World].ns + "." + o.ID[strings.Index(o.ID, ".")+1:]
		default:
			o.ns = b.Worlds[o.World].ns
			if o.Second {
				o.ns = b.Worlds[o.World].ns2
			}
			o.name = o.ID[strings.Index(o.ID, ".")+1:]
		}
	}
	if b.CRD >= 0 {
		ns := b.Worlds[b.Objs[b.CRD].World].ns
		b.crd = framework.CRD{Group: "b" + ns[strings.LastIndex(ns, "-")+1:] + ".pmr.e2e.kgc.dev", Kind: kSprocket, Plural: "sprockets", Namespace: !b.CRDCluster}
		env.CreateCRDServed(t, ctx, b.crd)
		crd, err := env.Dynamic.Resource(framework.CRDResource).Get(ctx, b.crd.TypeArg(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b.Objs[b.CRD].name, b.Objs[b.CRD].uid = crd.GetName(), string(crd.GetUID())
		svc := b.Objs[b.APIService]
		svc.name = "v1." + b.crd.Group
		err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			got, err := env.Dynamic.Resource(apiServicesGVR).Get(ctx, svc.name, metav1.GetOptions{})
			if err == nil {
				svc.uid = string(got.GetUID())
			}
			return err == nil, nil
		})
		if err != nil {
			t.Fatalf("seed %d: the API server made no APIService %s for the batch's CRD: %v", b.Seed, svc.name, err)
		}
		b.Objs[b.APIService] = svc
	}
	for i, o := range b.Objs {
		if o.Kind == kNamespace || o.Kind == kCRD || o.Kind == kAPIService || o.InAct {
			continue
		}
		// The API server may serve a new CRD's resource a moment after
		// it is Established.
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			return b.create(ctx, env, i) == nil, nil
		})
		if err != nil {
			t.Fatalf("seed %d: creating %s: %v", b.Seed, b.describe(i), b.create(ctx, env, i))
		}
	}
}

func (b *pmBatch) mkNamespace(t *testing.T, ctx context.Context, env *framework.Env, i int, prefix string) string {
	t.Helper()
	name := env.Namespace(t, ctx, prefix)
	ns, err := env.Client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Objs[i].name, b.Objs[i].uid = name, string(ns.UID)
	return name
}

// create creates object i as the admin.
func (b *pmBatch) create(ctx context.Context, env *framework.Env, i int) error {
	o := &b.Objs[i]
	var u *unstructured.Unstructured
	switch o.Kind {
	case kConfigMap:
		u = framework.Obj("v1", kConfigMap, o.ns, o.name)
	case kSecret:
		u = framework.Obj("v1", kSecret, o.ns, o.name)
		u.Object["stringData"] = map[string]any{"password": fakeSecret}
	case kWidget:
		u = randWidget.New(o.ns, o.name)
	case kGadget:
		u = randGadget.New("", o.name)
	default:
		u = b.crd.New(o.ns, o.name)
	}
	if o.ns == "" {
		u.SetLabels(map[string]string{pmLabel: b.Worlds[0].ns})
	}
	var refs []metav1.OwnerReference
	for k, ow := range o.Owners {
		refs = append(refs, b.ref(ow, o.Block[k]))
	}
	if o.Cross >= 0 {
		refs = append(refs, b.ref(o.Cross, nil))
	}
	if o.Ghost {
		if b.ghostUIDs[i] == "" {
			b.ghostUIDs[i] = string(uuid.NewUUID())
		}
		refs = append(refs, metav1.OwnerReference{APIVersion: "v1", Kind: kConfigMap, Name: "never-existed", UID: types.UID(b.ghostUIDs[i])})
	}
	u.SetOwnerReferences(refs)
	if o.Fin != "" {
		u.SetFinalizers([]string{o.Fin})
	}
	out, err := env.Dynamic.Resource(b.gvr(i)).Namespace(o.ns).Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating %s: %w", o.ID, err)
	}
	b.mu.Lock()
	o.uid = string(out.GetUID())
	b.mu.Unlock()
	return nil
}

func (b *pmBatch) ref(i int, block *bool) metav1.OwnerReference {
	o := b.Objs[i]
	apiVersion := b.gvr(i).GroupVersion().String()
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: o.Kind, Name: o.name, UID: types.UID(o.uid), BlockOwnerDeletion: block}
}

// play sends the phase's requests, each after its delay, all at once.
func (b *pmBatch) play(ctx context.Context, env *framework.Env, people pmPeopleClients, phase int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for k := range b.Acts {
		a := &b.Acts[k]
		if a.Phase != phase {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(a.Delay)
			err := b.act(ctx, env, people, a)
			mu.Lock()
			a.err = err
			mu.Unlock()
		}()
	}
	wg.Wait()
}

func (b *pmBatch) act(ctx context.Context, env *framework.Env, people pmPeopleClients, a *pmAct) error {
	if a.Verb == "create" {
		b.mu.Lock()
		b.createdTime[a.Obj] = time.Now()
		b.mu.Unlock()
		return b.create(ctx, env, a.Obj)
	}
	o := b.Objs[a.Obj]
	client := people[a.Person].dyn
	opts := metav1.DeleteOptions{}
	if a.Policy != "" {
		p := metav1.DeletionPropagation(a.Policy)
		opts.PropagationPolicy = &p
	}
	if a.UIDPre {
		opts.Preconditions = &metav1.Preconditions{UID: ptrTo(types.UID(o.uid))}
	}
	switch a.Verb {
	case "dryrun-body":
		// As kgc apply --dry-run=server sends it: in DeleteOptions.
		opts.DryRun = []string{metav1.DryRunAll}
	case "dryrun", "dryrun-collection":
		// As kubectl --dry-run=server sends it: dryRun=All in the URI.
		gvr, ns, name := b.gvr(a.Obj), o.ns, o.name
		if a.Verb == "dryrun-collection" {
			gvr, ns, name = framework.ConfigMaps, b.Worlds[o.World].ns, ""
		}
		// The API server reads the query only for a DELETE without a body.
		req := people[a.Person].rest.Delete().AbsPath(resourcePath(gvr, ns, name)).Param("dryRun", metav1.DryRunAll)
		if a.Policy != "" {
			req = req.Param("propagationPolicy", a.Policy)
		}
		return req.Do(ctx).Error()
	}
	return client.Resource(b.gvr(a.Obj)).Namespace(o.ns).Delete(ctx, o.name, opts)
}

// resourcePath is the API path of an object (or a collection: name "").
func resourcePath(gvr schema.GroupVersionResource, ns, name string) string {
	p := "/apis/" + gvr.Group + "/" + gvr.Version
	if gvr.Group == "" {
		p = "/api/" + gvr.Version
	}
	if ns != "" && gvr.Resource != "namespaces" {
		p += "/namespaces/" + ns
	}
	p += "/" + gvr.Resource
	if name != "" {
		p += "/" + name
	}
	return p
}

// pmPerson is how the tests act as a person: a dynamic client and a REST
// client (for query parameters), both impersonating them.
type pmPerson struct {
	dyn  dynamic.Interface
	rest rest.Interface
}

type pmPeopleClients map[string]pmPerson

// pmActAs binds and impersonates each person.
func pmActAs(t *testing.T, ctx context.Context, env *framework.Env) pmPeopleClients {
	t.Helper()
	out := pmPeopleClients{}
	for _, p := range pmPeople {
		dyn := actAs(t, ctx, env, p)
		cs, err := kubernetes.NewForConfig(asUser(env, p))
		if err != nil {
			t.Fatal(err)
		}
		out[p] = pmPerson{dyn: dyn, rest: cs.CoreV1().RESTClient()}
	}
	return out
}

// uidOf reads an object's UID, set by create (which play may run
// concurrently).
func (b *pmBatch) uidOf(i int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Objs[i].uid
}

// capture lists the batch's objects, keyed by UID. A type or namespace
// that is gone lists nothing.
func (b *pmBatch) capture(ctx context.Context, env *framework.Env) (map[string]framework.ObjState, error) {
	b.mu.Lock()
	mine := map[string]bool{}
	lists := map[schema.GroupVersionResource]bool{}
	for i, o := range b.Objs {
		if o.uid == "" {
			continue
		}
		mine[o.uid] = true
		if o.Kind != kNamespace && o.Kind != kCRD {
			lists[b.gvr(i)] = true
		}
	}
	b.mu.Unlock()
	out := map[string]framework.ObjState{}
	keep := func(gvr schema.GroupVersionResource, items []unstructured.Unstructured) {
		for k := range items {
			if s := framework.StateOf(gvr, &items[k]); mine[s.UID] {
				out[s.UID] = s
			}
		}
	}
	// One list per type across namespaces: the plane holds little else.
	for gvr := range lists {
		l, err := env.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) {
			continue // the batch's CRD is gone
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", gvr, err)
		}
		keep(gvr, l.Items)
	}
	nss, err := env.Dynamic.Resource(framework.Namespaces).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing namespaces: %w", err)
	}
	keep(framework.Namespaces, nss.Items)
	if b.CRD >= 0 {
		crd, err := env.Dynamic.Resource(framework.CRDResource).Get(ctx, b.Objs[b.CRD].name, metav1.GetOptions{})
		switch {
		case err == nil:
			keep(framework.CRDResource, []unstructured.Unstructured{*crd})
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading the batch's CRD: %w", err)
		}
	}
	return out, nil
}

// settle polls the batch's objects until they have not changed for quiet
// and nothing is pending: no object the test releases is waiting for its
// release, no object in a terminating namespace waits for the namespace
// controller, no instance of a terminating CRD for the CRD's finalizer.
// With people set, it removes pmReleaseFinalizer from each object that has
// been terminating for a moment, by update, as the object's Releaser.
func (b *pmBatch) settle(ctx context.Context, env *framework.Env, people pmPeopleClients, quiet time.Duration) (map[string]framework.ObjState, error) {
	seen := map[int]time.Time{}
	var last string
	since := time.Now()
	deadline := since.Add(4 * time.Minute)
	for {
		states, err := b.capture(ctx, env)
		if err != nil {
			return nil, err
		}
		fp := framework.Fingerprint(states)
		if fp != last {
			last, since = fp, time.Now()
		}
		pending := b.pending(states)
		if people != nil {
			if b.release(ctx, people, states, seen) {
				pending = true
			}
		}
		if !pending && time.Since(since) >= quiet {
			return states, nil
		}
		if time.Now().After(deadline) {
			return states, fmt.Errorf("still changing or pending after 4m (pending: %v); last state:\n%s", pending, fp)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// pending reports work the controllers have not done yet.
func (b *pmBatch) pending(states map[string]framework.ObjState) bool {
	for i, o := range b.Objs {
		s, ok := states[b.uidOf(i)]
		if !ok || s.Terminating {
			continue
		}
		if o.Kind != kNamespace && o.Kind != kCRD && o.Kind != kAPIService && o.Kind != kGadget && (o.Kind != kSprocket || !b.CRDCluster) {
			if ns, ok := states[b.Objs[b.nsOf(i)].uid]; ok && ns.Terminating {
				return true
			}
		}
		if o.Kind == kSprocket {
			if crd, ok := states[b.Objs[b.CRD].uid]; !ok || crd.Terminating {
				return true
			}
		}
	}
	return false
}

// release removes pmReleaseFinalizer from the objects terminating for a
// moment; it reports whether any is still waiting.
func (b *pmBatch) release(ctx context.Context, people pmPeopleClients, states map[string]framework.ObjState, seen map[int]time.Time) bool {
	waiting := false
	for i := range b.Objs {
		o := &b.Objs[i] // fields set before play; uid through uidOf
		uid := b.uidOf(i)
		st, ok := states[uid]
		if o.Fin != pmReleaseFinalizer || !ok || !st.Terminating || !slices.Contains(st.Finalizers, pmReleaseFinalizer) {
			continue
		}
		waiting = true
		if seen[i].IsZero() {
			seen[i] = time.Now()
		}
		if time.Since(seen[i]) < 700*time.Millisecond {
			continue
		}
		ri := people[o.Releaser].dyn.Resource(b.gvr(i)).Namespace(o.ns)
		cur, err := ri.Get(ctx, o.name, metav1.GetOptions{})
		if err != nil || string(cur.GetUID()) != uid {
			continue
		}
		cur.SetFinalizers(slices.DeleteFunc(cur.GetFinalizers(), func(f string) bool { return f == pmReleaseFinalizer }))
		_, _ = ri.Update(ctx, cur, metav1.UpdateOptions{}) // a conflict is retried on the next poll
	}
	return waiting
}

// playPhase plays a phase and waits until everything settled, the
// test's finalizer removals included.
func (b *pmBatch) playPhase(t *testing.T, ctx context.Context, env *framework.Env, people pmPeopleClients, phase int) map[string]framework.ObjState {
	t.Helper()
	b.play(ctx, env, people, phase)
	states, err := b.settle(ctx, env, people, 4*time.Second)
	if err != nil {
		t.Fatalf("seed %d: settling after phase %d: %v\n%s", b.Seed, phase, err, b)
	}
	return states
}

// cleanup removes the finalizers the batch set, so that what it left
// terminating (namespaces, its CRD) can go.
func (b *pmBatch) cleanup(ctx context.Context, env *framework.Env) {
	for i, o := range b.Objs {
		if o.Fin == "" || o.uid == "" {
			continue
		}
		ri := env.Dynamic.Resource(b.gvr(i)).Namespace(o.ns)
		for try := 0; try < 5; try++ {
			cur, err := ri.Get(ctx, o.name, metav1.GetOptions{})
			if err != nil {
				break
			}
			cur.SetFinalizers(slices.DeleteFunc(cur.GetFinalizers(), func(f string) bool { return f == holdFinalizer || f == pmReleaseFinalizer }))
			if _, err := ri.Update(ctx, cur, metav1.UpdateOptions{}); err == nil || !apierrors.IsConflict(err) {
				break
			}
		}
	}
}

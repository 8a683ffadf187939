package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/capture"
	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Live is the Cluster of a real API server.
type Live struct {
	cfg    *rest.Config
	mapper meta.RESTMapper
	meta   metadata.Interface
	// CaptureOptions are used for the fresh capture (context name,
	// progress).
	CaptureOptions capture.Options
	// catalog is the last capture's: it maps the plan's kinds to
	// resources without a second discovery. mu guards it: watches map
	// while a late capture may replace it.
	mu      sync.Mutex
	catalog []snapshot.Resource
}

// NewLive connects to the API server of cfg; mapper resolves the plan's
// kinds to resources.
func NewLive(cfg *rest.Config, mapper meta.RESTMapper) (*Live, error) {
	cfg = withAuditIDs(cfg)
	mc, err := metadata.NewForConfig(metadata.ConfigFor(cfg))
	if err != nil {
		return nil, fmt.Errorf("cannot create a metadata client: %w", err)
	}
	return &Live{cfg: cfg, mapper: mapper, meta: mc}, nil
}

// Capture takes a snapshot with pkg/capture, as kgc plan does, so that
// the fresh plan is made as the saved one was: of the whole cluster, or
// narrowed to what the objects of namespace depend on.
func (l *Live) Capture(ctx context.Context, namespace string) (*snapshot.Snapshot, error) {
	opts := l.CaptureOptions
	if namespace != "" {
		opts.Namespace, opts.OwnersOnly = namespace, true
	}
	snap, err := capture.Capture(ctx, l.cfg, opts)
	if err == nil {
		l.mu.Lock()
		l.catalog = snap.Resources
		l.mu.Unlock()
	}
	return snap, err
}

func (l *Live) mapping(ref snapshot.ObjectRef) (*meta.RESTMapping, error) {
	group, version := snapshot.SplitAPIVersion(ref.APIVersion)
	l.mu.Lock()
	m := catalogMapping(l.catalog, group, version, ref.Kind)
	l.mu.Unlock()
	if m != nil {
		return m, nil
	}
	m, err := l.mapper.RESTMapping(schema.GroupKind{Group: group, Kind: ref.Kind}, version)
	if err != nil {
		return nil, fmt.Errorf("cannot map %s %s to an API resource: %w", ref.APIVersion, ref.Kind, err)
	}
	return m, nil
}

// catalogMapping maps group, version and kind through a capture's
// catalog, as the RESTMapper would through discovery; nil when the
// catalog does not serve them.
func catalogMapping(catalog []snapshot.Resource, group, version, kind string) *meta.RESTMapping {
	for _, r := range catalog {
		if r.Group != group || r.Kind != kind || !slices.Contains(r.Versions, version) {
			continue
		}
		scope := meta.RESTScopeRoot
		if r.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		return &meta.RESTMapping{Resource: schema.GroupVersionResource{Group: group, Version: version, Resource: r.Resource},
			GroupVersionKind: schema.GroupVersionKind{Group: group, Version: version, Kind: kind}, Scope: scope}
	}
	return nil
}

func (l *Live) resource(ref snapshot.ObjectRef) (metadata.ResourceInterface, error) {
	m, err := l.mapping(ref)
	if err != nil {
		return nil, err
	}
	r := l.meta.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return r.Namespace(ref.Namespace), nil
	}
	return r, nil
}

// Delete sends the DELETE with its preconditions and policy.
func (l *Live) Delete(ctx context.Context, req DeleteRequest) Response {
	r, err := l.resource(req.Object)
	if err != nil {
		return Response{Message: err.Error()}
	}
	uid, rv := types.UID(req.Preconditions.UID), req.Preconditions.ResourceVersion
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}}
	if req.PropagationPolicy != "" {
		pp := metav1.DeletionPropagation(req.PropagationPolicy)
		opts.PropagationPolicy = &pp
	}
	if req.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	ctx, slot := withAuditID(ctx)
	return response(r.Delete(ctx, req.Object.Name, opts)).withAuditID(slot)
}

// Get reads obj in full through the dynamic client.
func (l *Live) Get(ctx context.Context, obj snapshot.ObjectRef) (map[string]any, error) {
	dc, err := dynamic.NewForConfig(l.cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot create a dynamic client: %w", err)
	}
	m, err := l.mapping(obj)
	if err != nil {
		return nil, err
	}
	var r dynamic.ResourceInterface = dc.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		r = dc.Resource(m.Resource).Namespace(obj.Namespace)
	}
	u, err := r.Get(ctx, obj.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if string(u.GetUID()) != obj.UID {
		return nil, fmt.Errorf("%w: %s is another object now (uid %s, planned %s)", ErrReplaced, obj.Name, u.GetUID(), obj.UID)
	}
	return u.Object, nil
}

// Send sends a remedy's request: a JSON patch (its test operations are
// its guard) or a DELETE with preconditions and a grace period.
func (l *Live) Send(ctx context.Context, req diagnose.RemedyRequest, dryRun bool) Response {
	r, err := l.resource(req.Object)
	if err != nil {
		return Response{Message: err.Error()}
	}
	var dry []string
	if dryRun {
		dry = []string{metav1.DryRunAll}
	}
	ctx, slot := withAuditID(ctx)
	return sendRemedy(ctx, r, req, dry).withAuditID(slot)
}

// sendRemedy sends a remedy's request with the client of its resource.
func sendRemedy(ctx context.Context, r metadata.ResourceInterface, req diagnose.RemedyRequest, dry []string) Response {
	switch req.Verb {
	case diagnose.VerbPatch:
		body, err := json.Marshal(req.Patch)
		if err != nil {
			return Response{Message: err.Error()}
		}
		_, err = r.Patch(ctx, req.Object.Name, types.JSONPatchType, body, metav1.PatchOptions{DryRun: dry})
		return response(err)
	case diagnose.VerbDelete:
		opts := metav1.DeleteOptions{DryRun: dry, GracePeriodSeconds: req.GracePeriodSeconds}
		if p := req.Preconditions; p != nil {
			uid := types.UID(p.UID)
			opts.Preconditions = &metav1.Preconditions{UID: &uid}
			if p.ResourceVersion != "" {
				opts.Preconditions.ResourceVersion = &p.ResourceVersion
			}
		}
		return response(r.Delete(ctx, req.Object.Name, opts))
	}
	return Response{Message: "kgc cannot send a " + req.Verb + " request"}
}

// withAuditID records the audit ID of the request that got resp.
func (resp Response) withAuditID(s *auditSlot) Response {
	resp.AuditID = s.id()
	return resp
}

// response turns a client error into the response the server gave.
func response(err error) Response {
	if err == nil {
		return Response{Status: 200, Message: "OK"}
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return Response{Status: int(st.Status().Code), Message: st.Status().Message}
	}
	return Response{Message: err.Error()}
}

// Identity asks the API server who kgc acts as, with a SelfSubjectReview
// (GA since Kubernetes 1.28), for the report: the user name, or "" when
// the cluster does not say. It never fails the apply.
func (l *Live) Identity(ctx context.Context) string {
	cfg := rest.CopyConfig(l.cfg)
	cfg.APIPath = "/"
	cfg.GroupVersion = &schema.GroupVersion{}
	cfg.ContentType = "application/json"
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(runtime.NewScheme()).WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return ""
	}
	body := []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	raw, err := rc.Post().AbsPath("/apis/authentication.k8s.io/v1/selfsubjectreviews").Body(body).DoRaw(ctx)
	if err != nil {
		return ""
	}
	var review struct {
		Status struct {
			UserInfo struct {
				Username string `json:"username"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	if json.Unmarshal(raw, &review) != nil {
		return ""
	}
	return review.Status.UserInfo.Username
}

// watchKey is one watch: a resource in one namespace ("" for cluster
// scope or all).
type watchKey struct {
	ref snapshot.ObjectRef // apiVersion, kind, namespace of the group
}

// Watch lists and watches every type of objs, one watch per type and
// namespace, and reports the objects of objs. A watch that ends (the
// server closes them after a while, or its resourceVersion expires) is
// re-listed and restarted, so no change is missed.
func (l *Live) Watch(ctx context.Context, objs []snapshot.ObjectRef) (<-chan Event, error) {
	groups := map[watchKey]map[string]bool{}
	for _, o := range objs {
		k := watchKey{snapshot.ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace}}
		if groups[k] == nil {
			groups[k] = map[string]bool{}
		}
		groups[k][o.UID] = true
	}
	type watcher struct {
		r    metadata.ResourceInterface
		uids map[string]bool
	}
	var ws []watcher
	for k, uids := range groups {
		r, err := l.resource(k.ref)
		if err != nil {
			return nil, err
		}
		ws = append(ws, watcher{r, uids})
	}
	out := make(chan Event)
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			watchUntilDone(ctx, w.r, w.uids, out)
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out, nil
}

// watchUntilDone relists and rewatches until ctx ends.
func watchUntilDone(ctx context.Context, r metadata.ResourceInterface, uids map[string]bool, out chan<- Event) {
	for ctx.Err() == nil {
		err := listAndWatch(ctx, r, uids, out)
		if apierrors.IsNotFound(err) {
			// The type itself is gone (its CRD was deleted, as a CRD's
			// plan says): so are its objects.
			for uid := range uids {
				send(ctx, out, Event{UID: uid})
			}
			<-ctx.Done()
			return
		}
		if err != nil {
			select { // an API error: retry after a pause, not in a tight loop
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

func listAndWatch(ctx context.Context, r metadata.ResourceInterface, uids map[string]bool, out chan<- Event) error {
	list, err := r.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	present := map[string]bool{}
	for i := range list.Items {
		if uid := string(list.Items[i].UID); uids[uid] {
			present[uid] = true
			send(ctx, out, Event{UID: uid, State: stateOf(&list.Items[i])})
		}
	}
	for uid := range uids {
		if !present[uid] {
			send(ctx, out, Event{UID: uid})
		}
	}
	w, err := r.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		return err
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		m, ok := ev.Object.(*metav1.PartialObjectMetadata)
		if ev.Type == watch.Error || !ok {
			return io.EOF
		}
		if !uids[string(m.UID)] {
			continue
		}
		e := Event{UID: string(m.UID)}
		if ev.Type != watch.Deleted {
			e.State = stateOf(m)
		}
		send(ctx, out, e)
	}
	return nil
}

func send(ctx context.Context, out chan<- Event, e Event) {
	select {
	case out <- e:
	case <-ctx.Done():
	}
}

func stateOf(m *metav1.PartialObjectMetadata) *plan.FinalState {
	s := &plan.FinalState{Exists: true, Terminating: m.DeletionTimestamp != nil,
		Finalizers: append([]string{}, m.Finalizers...), OwnerReferences: []string{}}
	for _, o := range m.OwnerReferences {
		s.OwnerReferences = append(s.OwnerReferences, string(o.UID))
	}
	return s
}

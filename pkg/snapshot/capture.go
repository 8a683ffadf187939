package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// CaptureOptions tunes Capture.
type CaptureOptions struct {
	// Workers lists this many types at once; 0 means DefaultWorkers.
	Workers int
	// PageSize is the list page size; 0 means DefaultPageSize.
	PageSize int64
	// Progress, when set, receives a single updating progress line.
	Progress io.Writer
	// Context is the kubeconfig context name, recorded in Source.
	Context string
	// Namespace limits namespaced types to one namespace ("" = all).
	// Cluster-scoped types are always listed in full.
	Namespace string
	// ConsistentRead asks for quorum reads from etcd. By default the
	// first page of every list is served from the API server's watch
	// cache (resourceVersion=0): the view the garbage collector's own
	// informers list from, possibly a few milliseconds behind etcd, and
	// three to four times cheaper for the server (33k objects on a local
	// kube-apiserver: 110–170 ms instead of 370–480 ms).
	ConsistentRead bool
}

const (
	// DefaultWorkers lists this many types in parallel: enough to hide
	// round trips, few enough not to trip API Priority and Fairness.
	DefaultWorkers = 12
	// DefaultPageSize is the list chunk size.
	DefaultPageSize = 1000
	maxTries        = 5 // per page, for 429, 5xx and timeouts
	maxRelists      = 3 // per type, for 410 Gone (expired continue token)
)

// factKinds are listed in full (as JSON, reduced by the same scanner as
// dumps) because diagnosis needs a few of their spec or status fields.
var factKinds = map[groupKind]bool{
	{"", "Pod"}: true, {"", "Namespace"}: true, {"", "Node"}: true, {"", "PersistentVolumeClaim"}: true,
	{"", "PersistentVolume"}: true, {"", "Service"}: true, {"batch", "Job"}: true,
	{"apiextensions.k8s.io", "CustomResourceDefinition"}: true,
}

// Capture lists every listable type of the cluster, metadata only, and
// returns the snapshot. Discovery failures of single groups (an aggregated
// API being down is common) and list failures of single types (RBAC) are
// recorded as warnings and as listed:false in the catalog, not errors.
func Capture(ctx context.Context, cfg *rest.Config, opts CaptureOptions) (*Snapshot, error) {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.RateLimiter == nil && cfg.QPS <= rest.DefaultQPS {
		// Client-side throttling at 5 QPS would dominate a capture; the
		// server's priority and fairness protects it, and 429s are retried.
		cfg.QPS = -1
	}
	// Deprecation warnings (v1 Endpoints, ComponentStatus) are about
	// using those APIs, not about the cluster: a capture lists every type
	// and would print them on every run.
	cfg.WarningHandler = rest.NoWarnings{}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot create a client for %s: %w", cfg.Host, err)
	}
	info, err := dc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("cannot reach the cluster at %s: %w; check --kubeconfig and --context, or use -f to read dumps", cfg.Host, err)
	}
	c := &capturer{opts: opts}
	startedAt := time.Now().UTC().Truncate(time.Second)
	groups, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		failed, ok := discovery.GroupDiscoveryFailedErrorGroups(err)
		if !ok {
			return nil, fmt.Errorf("discovery of the cluster's API types failed: %w", err)
		}
		gvs := make([]schema.GroupVersion, 0, len(failed))
		for gv := range failed {
			gvs = append(gvs, gv)
		}
		sort.Slice(gvs, func(i, j int) bool { return gvs[i].String() < gvs[j].String() })
		for _, v := range gvs {
			e, gv := failed[v], v.String()
			c.discoveryErrors = append(c.discoveryErrors, DiscoveryError{GroupVersion: gv, Error: e.Error()})
			c.warnings = append(c.warnings, Warning{Object: gv, Message: fmt.Sprintf("discovery failed, its types are not listed (owners of those types are unknown): %v", e)})
		}
	}
	res := resourcesFromDiscovery(groups, lists)

	if c.meta, err = metadata.NewForConfig(metadata.ConfigFor(cfg)); err != nil {
		return nil, fmt.Errorf("cannot create a metadata client: %w", err)
	}
	jcfg := rest.CopyConfig(cfg)
	jcfg.APIPath = "/"
	jcfg.GroupVersion = &schema.GroupVersion{}
	jcfg.AcceptContentTypes = "application/json"
	jcfg.ContentType = "application/json"
	jcfg.NegotiatedSerializer = serializer.NewCodecFactory(runtime.NewScheme()).WithoutConversion()
	if c.raw, err = rest.RESTClientFor(jcfg); err != nil {
		return nil, fmt.Errorf("cannot create a REST client: %w", err)
	}

	results := c.listAll(ctx, res)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("capture interrupted: %w", err)
	}

	snap := &Snapshot{APIVersion: APIVersion, Kind: "Snapshot", CapturedAt: startedAt,
		Source:          Source{Type: "live", Server: cfg.Host, ServerVersion: info.GitVersion, Context: opts.Context, Namespace: opts.Namespace},
		DiscoveryErrors: c.discoveryErrors}
	total := 0
	for _, r := range results {
		total += len(r.objs)
	}
	objs := make([]Object, 0, total)
	seen := make(map[string]struct{}, total)
	for i, r := range results {
		if r.err != nil {
			res[i].Listed = false
			res[i].Error = r.err.Error()
			c.warnings = append(c.warnings, Warning{Object: res[i].QualifiedName(), Message: fmt.Sprintf("not listed (owners of this type are unknown): %v", r.err)})
			continue
		}
		res[i].Listed = r.listed
		noUID := 0
		for _, o := range r.objs {
			if o.Metadata.UID == "" {
				noUID++
				continue
			}
			// The same object served through two resources (core and
			// events.k8s.io events share storage) is one object.
			if _, dup := seen[o.Metadata.UID]; dup {
				continue
			}
			seen[o.Metadata.UID] = struct{}{}
			res[i].Count++
			objs = append(objs, o)
		}
		// Objects without a UID cannot be owners or dependents. Types that
		// cannot be deleted serve views computed on the fly without one
		// (ComponentStatus, metrics.k8s.io): nothing to say about those.
		if noUID > 0 && res[i].HasVerb("delete") {
			c.warnings = append(c.warnings, Warning{Object: res[i].QualifiedName(), Message: fmt.Sprintf("skipped %d objects without metadata.uid", noUID)})
		}
	}
	SortObjects(objs)
	sortResources(res)
	snap.Resources = res
	snap.Objects = objs
	snap.Warnings = c.warnings
	return snap, nil
}

// DiscoveryError records an API group version whose discovery failed.
type DiscoveryError struct {
	GroupVersion string `json:"groupVersion"`
	Error        string `json:"error"`
}

// resourcesFromDiscovery builds the catalog with ServerPreferredResources
// semantics: per group, versions in the server's priority order, and a
// resource belongs to the first version serving it. Versions collects
// every served version of it, preferred first.
func resourcesFromDiscovery(groups []*metav1.APIGroup, lists []*metav1.APIResourceList) []Resource {
	byGV := map[string]*metav1.APIResourceList{}
	for _, l := range lists {
		if l != nil {
			byGV[l.GroupVersion] = l
		}
	}
	var out []Resource
	for _, g := range groups {
		if g == nil {
			continue
		}
		var versions []string
		if g.PreferredVersion.Version != "" {
			versions = append(versions, g.PreferredVersion.Version)
		}
		for _, v := range g.Versions {
			if v.Version != g.PreferredVersion.Version {
				versions = append(versions, v.Version)
			}
		}
		index := map[string]int{}
		for _, v := range versions {
			gv := v
			if g.Name != "" {
				gv = g.Name + "/" + v
			}
			l := byGV[gv]
			if l == nil {
				continue
			}
			for _, ar := range l.APIResources {
				if strings.Contains(ar.Name, "/") {
					continue // subresource
				}
				if i, ok := index[ar.Name]; ok {
					if out[i].Kind == ar.Kind && !contains(out[i].Versions, v) {
						out[i].Versions = append(out[i].Versions, v)
					}
					continue
				}
				singular := ar.SingularName
				if singular == "" {
					singular = strings.ToLower(ar.Kind)
				}
				index[ar.Name] = len(out)
				out = append(out, Resource{
					Group: g.Name, Version: v, Resource: ar.Name, Kind: ar.Kind, Namespaced: ar.Namespaced,
					ShortNames: ar.ShortNames, Singular: singular, Categories: ar.Categories,
					Verbs: sortedVerbs(ar.Verbs), Versions: []string{v},
				})
			}
		}
	}
	return out
}

func sortedVerbs(v metav1.Verbs) []string {
	out := append([]string(nil), v...)
	sort.Strings(out)
	return out
}

type capturer struct {
	opts            CaptureOptions
	meta            metadata.Interface
	raw             rest.Interface
	warnings        []Warning
	discoveryErrors []DiscoveryError

	doneTypes atomic.Int64
	objects   atomic.Int64
	// backoff is the first retry delay; tests shorten it.
	backoff time.Duration
}

type listResult struct {
	objs   []Object
	listed bool
	err    error
}

// listAll lists the listable resources with a bounded worker pool.
func (c *capturer) listAll(ctx context.Context, res []Resource) []listResult {
	results := make([]listResult, len(res))
	var todo []int
	for i, r := range res {
		if r.HasVerb("list") {
			todo = append(todo, i)
		}
	}
	// Pods, events and secrets are usually the biggest types: start them
	// first so that they do not become the long tail.
	sort.SliceStable(todo, func(a, b int) bool { return bigFirst(res[todo[a]]) > bigFirst(res[todo[b]]) })

	stop := c.startProgress(len(todo))
	defer stop()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(c.opts.Workers, max(len(todo), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := newExtractor()
			for i := range work {
				objs, err := c.listType(ctx, x, res[i])
				results[i] = listResult{objs: objs, listed: err == nil, err: err}
				c.doneTypes.Add(1)
			}
		}()
	}
	for _, i := range todo {
		select {
		case work <- i:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	return results
}

func bigFirst(r Resource) int {
	if r.Group == "" {
		switch r.Resource {
		case "pods":
			return 3
		case "events", "secrets", "configmaps":
			return 2
		}
	}
	if r.Group == "apps" && r.Resource == "replicasets" {
		return 2
	}
	return 0
}

// startProgress prints "listing: N/M types, K objects" on one updating
// line until stop is called.
func (c *capturer) startProgress(total int) (stop func()) {
	if c.opts.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	print := func() {
		fmt.Fprintf(c.opts.Progress, "\rlisting: %d/%d types, %d objects", c.doneTypes.Load(), total, c.objects.Load())
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				print()
				fmt.Fprint(c.opts.Progress, "\n")
				return
			case <-t.C:
				print()
			}
		}
	}()
	return func() { close(done); <-finished }
}

// listType lists one resource page by page, relisting from scratch when
// the continue token expires (410 Gone), as a reflector does.
func (c *capturer) listType(ctx context.Context, x *extractor, r Resource) ([]Object, error) {
	ns := ""
	if r.Namespaced {
		ns = c.opts.Namespace
	}
	full := factKinds[groupKind{r.Group, r.Kind}]
	for relist := 0; ; relist++ {
		var objs []Object
		cont := ""
		var err error
		for {
			var page []Object
			err = c.retry(ctx, func() error {
				var next string
				var err error
				if full {
					page, next, err = c.listFullPage(ctx, x, r, ns, cont)
				} else {
					page, next, err = c.listMetaPage(ctx, x, r, ns, cont)
				}
				if err == nil {
					// Only a successful page moves on: a retry must ask
					// for the same page again.
					cont = next
				}
				return err
			})
			if err != nil {
				break
			}
			objs = append(objs, page...)
			c.objects.Add(int64(len(page)))
			if cont == "" {
				return objs, nil
			}
		}
		c.objects.Add(-int64(len(objs)))
		if (apierrors.IsResourceExpired(err) || apierrors.IsGone(err)) && relist < maxRelists {
			continue
		}
		return nil, describeListError(err)
	}
}

// describeListError keeps the API server's message but drops the Go noise.
func describeListError(err error) error {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		st := se.Status()
		return fmt.Errorf("%s (HTTP %d)", st.Message, st.Code)
	}
	return err
}

func (c *capturer) retry(ctx context.Context, fn func() error) error {
	delay := c.backoff
	if delay == 0 {
		delay = 200 * time.Millisecond
	}
	for try := 1; ; try++ {
		err := fn()
		if err == nil || try >= maxTries || !retryable(err) {
			return err
		}
		// Full jitter keeps the workers from retrying in lockstep.
		d := time.Duration(rand.Int64N(int64(delay)) + int64(delay)/2)
		if s, ok := apierrors.SuggestsClientDelay(err); ok && time.Duration(s)*time.Second > d {
			d = time.Duration(s) * time.Second
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

func retryable(err error) bool {
	if apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err) {
		return true
	}
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return se.Status().Code >= 500
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "connection reset by peer")
}

func (c *capturer) listMetaPage(ctx context.Context, x *extractor, r Resource, ns, cont string) ([]Object, string, error) {
	gvr := schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
	var ri metadata.ResourceInterface = c.meta.Resource(gvr)
	if ns != "" {
		ri = c.meta.Resource(gvr).Namespace(ns)
	}
	list, err := ri.List(ctx, c.listOptions(cont))
	if err != nil {
		return nil, "", err
	}
	apiVersion := x.in.str(r.GroupVersion())
	kind := x.in.str(r.Kind)
	out := make([]Object, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, fromObjectMeta(x.in, apiVersion, kind, &list.Items[i].ObjectMeta))
	}
	return out, list.Continue, nil
}

// listOptions for one page. Only a first page carries a resourceVersion:
// later pages are pinned by their continue token.
func (c *capturer) listOptions(cont string) metav1.ListOptions {
	lo := metav1.ListOptions{Limit: c.opts.PageSize, Continue: cont}
	if cont == "" && !c.opts.ConsistentRead {
		lo.ResourceVersion = "0"
	}
	return lo
}

// fromObjectMeta copies the kept metadata; annotations and managedFields
// are left behind.
func fromObjectMeta(in *interner, apiVersion, kind string, m *metav1.ObjectMeta) Object {
	o := Object{APIVersion: apiVersion, Kind: kind, Metadata: ObjectMeta{
		Name: m.Name, Namespace: in.str(m.Namespace), UID: string(m.UID), ResourceVersion: m.ResourceVersion,
		Generation: m.Generation, DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds, Labels: m.Labels,
	}}
	if !m.CreationTimestamp.IsZero() {
		t := m.CreationTimestamp.UTC()
		o.Metadata.CreationTimestamp = &t
	}
	if m.DeletionTimestamp != nil {
		t := m.DeletionTimestamp.UTC()
		o.Metadata.DeletionTimestamp = &t
	}
	for _, f := range m.Finalizers {
		o.Metadata.Finalizers = append(o.Metadata.Finalizers, in.str(f))
	}
	for _, r := range m.OwnerReferences {
		o.Metadata.OwnerReferences = append(o.Metadata.OwnerReferences, OwnerReference{
			APIVersion: in.str(r.APIVersion), Kind: in.str(r.Kind), Name: r.Name, UID: string(r.UID),
			Controller: r.Controller, BlockOwnerDeletion: r.BlockOwnerDeletion,
		})
	}
	return o
}

// listFullPage lists whole objects as JSON and reduces them with the dump
// scanner, for the kinds whose Facts need spec or status.
func (c *capturer) listFullPage(ctx context.Context, x *extractor, r Resource, ns, cont string) ([]Object, string, error) {
	path := "/api/" + r.Version
	if r.Group != "" {
		path = "/apis/" + r.Group + "/" + r.Version
	}
	if ns != "" {
		path += "/namespaces/" + ns
	}
	path += "/" + r.Resource
	lo := c.listOptions(cont)
	req := c.raw.Get().AbsPath(path).Param("limit", strconv.FormatInt(lo.Limit, 10))
	if lo.Continue != "" {
		req = req.Param("continue", lo.Continue)
	}
	if lo.ResourceVersion != "" {
		req = req.Param("resourceVersion", lo.ResourceVersion)
	}
	body, err := req.DoRaw(ctx)
	if err != nil {
		return nil, "", err
	}
	return parseListPage(body, x, r.GroupVersion(), r.Kind)
}

// parseListPage reads a JSON list response: its items and continue token.
func parseListPage(body []byte, x *extractor, apiVersion, kind string) ([]Object, string, error) {
	var out []Object
	var cont string
	s := scanner{d: body}
	s.ws()
	err := s.object(func(key []byte) error {
		switch string(key) {
		case "metadata":
			return s.object(func(k []byte) error {
				if string(k) == "continue" {
					var err error
					cont, err = s.str()
					return err
				}
				return s.skip()
			})
		case "items":
			return s.array(func(int) error {
				raw, err := s.raw()
				if err != nil {
					return err
				}
				f, err := splitTop(raw)
				if err != nil {
					return err
				}
				f.apiVersion, f.kind = nil, nil
				o, err := x.extract(f, apiVersion, kind)
				if err != nil {
					return fmt.Errorf("%s %s: %w", kind, o.Metadata.Name, err)
				}
				out = append(out, o)
				return nil
			})
		}
		return s.skip()
	})
	if err != nil {
		return nil, "", fmt.Errorf("cannot parse the list response: %w", err)
	}
	return out, cont, nil
}

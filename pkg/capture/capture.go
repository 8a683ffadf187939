// Package capture takes a snapshot of a live cluster. With the coming
// apply, it is one of the only packages that talk to a cluster: every
// other package works on the snapshot.Snapshot it returns, which is what
// keeps analysis reproducible from a file.
//
// Capture runs discovery for the catalog (every served version of each
// group/kind, the preferred one first), then lists every type with the
// list verb, metadata only, in pages, several types at once. The few kinds
// whose facts live in spec or status (rules.HasFacts) are listed in
// full and reduced by the same scanner as dumps. A type that cannot be
// listed (RBAC, a failing aggregated API) stays in the catalog with
// listed=false and its error; a failure other than RBAC's also becomes a
// warning, while RBAC refusals, often dozens of types for a user bound in
// one namespace, are left to the caller to sum up (Resource.Forbidden).
//
// A user allowed into some namespaces only is served as kubectl serves
// them: a cluster-scope list RBAC forbids is retried in each namespace the
// caller asks about (Options.Namespaces), and such a type is marked listed
// in those namespaces only (Resource.Namespaces). A capture that could
// read nothing of what was asked fails, as kubectl's Forbidden does,
// rather than return a snapshot of nothing that analysis would take for
// an empty cluster.
package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Options tunes Capture.
type Options struct {
	// Workers lists this many types at once; 0 means DefaultWorkers.
	Workers int
	// PageSize is how many objects a list page holds at most (kubectl's
	// --chunk-size); 0 means DefaultPageSize, NoPaging lists each type in
	// one request without a limit.
	PageSize int64
	// Progress, when set, receives a single updating progress line.
	Progress io.Writer
	// Context is the kubeconfig context name, recorded in Source.
	Context string
	// Namespace limits namespaced types to one namespace ("" = all).
	// Cluster-scoped types are always listed in full.
	Namespace string
	// Namespaces are the namespaces the caller asks about. When RBAC
	// forbids listing a namespaced type at cluster scope, it is listed in
	// each of these instead; when it forbids listing namespaces, these
	// are read by name. Capture fails when none of them (with Namespace)
	// could be read, or, when none is given, when no namespaced type
	// could be listed at cluster scope.
	Namespaces []string
	// ConsistentRead asks for quorum reads from etcd. By default the
	// first page of every list is served from the API server's watch
	// cache (resourceVersion=0): the view the garbage collector's own
	// informers list from, possibly a few milliseconds behind etcd, and
	// three to four times cheaper for the server (33k objects on a local
	// kube-apiserver: 110–170 ms instead of 370–480 ms).
	ConsistentRead bool
	// OwnersOnly, with Namespace, narrows the capture to what the
	// objects of that namespace depend on (scope.go): cluster-scoped
	// types are listed only when they carry facts or an object read names
	// them as an owner's kind.
	OwnersOnly bool
}

const (
	// DefaultWorkers lists this many types in parallel: enough to hide
	// round trips, few enough not to trip API Priority and Fairness.
	DefaultWorkers = 12
	// DefaultPageSize is the list chunk size: twice kubectl's 500, since
	// a capture reads metadata only, so a page costs the API server less
	// than kubectl's full objects.
	DefaultPageSize = 1000
	maxTries        = 5 // per page, for 429, 5xx and timeouts
	maxRelists      = 3 // per type, for 410 Gone (expired continue token)
	maxTimeouts     = 2 // per request, for the client's timeout: then the capture stops
)

// NoPaging as PageSize lists each type in one request, as kubectl
// --chunk-size=0 does.
const NoPaging int64 = -1

// Capture lists every listable type of the cluster, metadata only, and
// returns the snapshot. Discovery failures of single groups (an aggregated
// API being down is common) and list failures of single types (RBAC) are
// recorded as warnings and as listed:false in the catalog, not errors.
func Capture(ctx context.Context, cfg *rest.Config, opts Options) (*snapshot.Snapshot, error) {
	opts = opts.withDefaults()
	cfg = clientConfig(cfg)
	d, err := discover(cfg)
	if err != nil {
		return nil, err
	}
	c, err := newCapturer(cfg, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c.abort, c.timeout = cancel, cfg.Timeout
	results := c.listRounds(ctx, d.resources)
	if err := context.Cause(ctx); err != nil {
		var stalled *StalledError
		if errors.As(err, &stalled) {
			return nil, err
		}
		return nil, fmt.Errorf("capture interrupted: %w", err)
	}
	if err := checkReadable(d.resources, results, c.fallback, cfg.Host); err != nil {
		return nil, err
	}
	src := snapshot.Source{Type: "live", Server: cfg.Host, ServerVersion: d.serverVersion, Context: opts.Context, Namespace: opts.Namespace}
	snap := assemble(d, results, src)
	snap.Source.KubeSystemUID = c.kubeSystemUID(ctx, snap)
	return snap, nil
}

// kubeSystemUID finds the kube-system namespace's UID, the cluster's
// fingerprint: from the capture when namespaces were listed, else with one
// GET. A cluster that hides it gets no fingerprint, and plans made on it
// cannot be applied (kgc plan says so), rather than a guess.
func (c *capturer) kubeSystemUID(ctx context.Context, snap *snapshot.Snapshot) string {
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if o.APIVersion == "v1" && o.Kind == "Namespace" && o.Metadata.Name == "kube-system" {
			return o.Metadata.UID
		}
	}
	ns := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	m, err := c.meta.Resource(ns).Get(ctx, "kube-system", metav1.GetOptions{})
	if err != nil {
		// Only applying a plan needs it; kgc plan says so when it is missing,
		// and every other command would only be warned about nothing.
		return ""
	}
	return string(m.UID)
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	return o
}

// clientConfig adapts the caller's config to a capture, on a copy.
func clientConfig(cfg *rest.Config) *rest.Config {
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
	return cfg
}

// newCapturer makes the two list clients: the metadata client for most
// types, and a raw JSON client for the kinds listed in full.
func newCapturer(cfg *rest.Config, opts Options) (*capturer, error) {
	c := &capturer{opts: opts, fallback: askedNamespaces(opts)}
	var err error
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
	return c, nil
}

// askedNamespaces are the namespaces the caller asks about, sorted, once.
func askedNamespaces(opts Options) []string {
	var out []string
	for _, ns := range append(slices.Clone(opts.Namespaces), opts.Namespace) {
		if ns != "" && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out
}

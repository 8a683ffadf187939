package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

// capturer lists the types of one capture; its counters feed the
// progress line.
type capturer struct {
	opts Options
	meta metadata.Interface
	raw  rest.Interface
	// fallback are the namespaces asked about (Options.Namespaces and
	// Options.Namespace), where a type forbidden at cluster scope is read.
	fallback []string

	doneTypes atomic.Int64
	objects   atomic.Int64
	// backoff is the first retry delay; tests shorten it.
	backoff time.Duration
	// abort stops the capture with a cause (stall); timeout is the
	// client's per-request timeout, for the message.
	abort   context.CancelCauseFunc
	timeout time.Duration
}

// listRounds lists the types of the capture: every listable one, or for
// a narrow capture the rounds of scope.go. results[i] is the list of
// res[i]; a type never tried stays zero (not listed, no error).
func (c *capturer) listRounds(ctx context.Context, res []snapshot.Resource) []listResult {
	results := make([]listResult, len(res))
	tried := make([]bool, len(res))
	round := firstRound(res, c.opts.narrow())
	for len(round) > 0 && ctx.Err() == nil {
		for _, i := range round {
			tried[i] = true
		}
		c.listAll(ctx, res, round, results)
		if !c.opts.narrow() {
			break
		}
		round = ownerRound(res, tried, results)
	}
	return results
}

// listAll lists the resources res[todo] into results with a bounded
// worker pool.
func (c *capturer) listAll(ctx context.Context, res []snapshot.Resource, todo []int, results []listResult) {
	todo = slices.Clone(todo)
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
			x := snapshotio.NewExtractor()
			for i := range work {
				results[i] = c.listResource(ctx, x, res[i])
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
}

func bigFirst(r snapshot.Resource) int {
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

// clearLine returns to the start of the line and erases it (ANSI EL).
const clearLine = "\r\x1b[K"

// startProgress prints "listing: N/M types, K objects" on one updating
// line until stop is called, which clears the line: the count was news
// while it moved, and what follows on the terminal (the result, or a
// warning about what could not be listed) says the rest.
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
				fmt.Fprint(c.opts.Progress, clearLine)
				return
			case <-t.C:
				print()
			}
		}
	}()
	return func() { close(done); <-finished }
}

// listResource lists r where the capture asks: at cluster scope, or in
// Options.Namespace for a namespaced type. A cluster-scope list that RBAC
// forbids falls back to the namespaces asked about, as kubectl get -n
// succeeds where kubectl get -A is forbidden: namespaced types are listed
// in each, and the Namespace objects are read by name.
func (c *capturer) listResource(ctx context.Context, x *snapshotio.Extractor, r snapshot.Resource) listResult {
	if r.Namespaced && c.opts.Namespace != "" {
		objs, err := c.listType(ctx, x, r, c.opts.Namespace)
		if err != nil {
			return listResult{err: describeListError(err)}
		}
		return listResult{objs: objs, listed: true, namespaces: []string{c.opts.Namespace}}
	}
	objs, err := c.listType(ctx, x, r, "")
	switch {
	case err == nil:
		return listResult{objs: objs, listed: true}
	case !apierrors.IsForbidden(err) || len(c.fallback) == 0:
		return listResult{err: describeListError(err)}
	case r.Namespaced:
		return c.listInNamespaces(ctx, x, r, err)
	case r.Group == "" && r.Resource == "namespaces":
		return c.getNamespaces(ctx, x, r, err)
	}
	return listResult{err: describeListError(err)}
}

// listInNamespaces lists r in each namespace asked about, after its list
// at cluster scope was forbidden. It is listed where a list succeeded; if
// none did, the namespace's refusal is the error, as it is what the user
// asked for and what kubectl get -n would print.
func (c *capturer) listInNamespaces(ctx context.Context, x *snapshotio.Extractor, r snapshot.Resource, clusterErr error) listResult {
	res := listResult{err: describeListError(clusterErr)}
	var refused error
	for _, ns := range c.fallback {
		objs, err := c.listType(ctx, x, r, ns)
		if err != nil {
			if refused == nil {
				refused = err
			}
			continue
		}
		res.objs = append(res.objs, objs...)
		res.namespaces = append(res.namespaces, ns)
	}
	if len(res.namespaces) == 0 {
		return listResult{err: describeListError(refused)}
	}
	res.listed = true
	return res
}

// getNamespaces reads the Namespace objects asked about by name, after the
// list of namespaces was forbidden: RBAC lets a user bound in a namespace
// GET that namespace. A namespace that does not exist (404) was read too:
// its absence is known.
func (c *capturer) getNamespaces(ctx context.Context, x *snapshotio.Extractor, r snapshot.Resource, clusterErr error) listResult {
	res := listResult{err: describeListError(clusterErr)}
	for _, ns := range c.fallback {
		var body []byte
		err := c.retry(ctx, func() error {
			var err error
			body, err = c.raw.Get().MaxRetries(0).AbsPath("/api/" + r.Version + "/namespaces/" + ns).DoRaw(ctx)
			return statusFromBody(body, err)
		})
		if apierrors.IsNotFound(err) {
			res.namespaces = append(res.namespaces, ns)
			continue
		}
		if err != nil {
			continue
		}
		o, err := x.ReadObject(body, r.GroupVersion(), r.Kind)
		if err != nil {
			continue
		}
		res.objs = append(res.objs, o)
		res.namespaces = append(res.namespaces, ns)
		c.objects.Add(1)
	}
	res.listed = len(res.namespaces) > 0
	return res
}

// listType lists one resource in namespace ns ("" = cluster scope) page
// by page, relisting from scratch when the continue token expires (410
// Gone), as a reflector does.
func (c *capturer) listType(ctx context.Context, x *snapshotio.Extractor, r snapshot.Resource, ns string) ([]snapshot.Object, error) {
	for relist := 0; ; relist++ {
		objs, err := c.listPages(ctx, x, r, ns)
		if err == nil {
			return objs, nil
		}
		if (apierrors.IsResourceExpired(err) || apierrors.IsGone(err)) && relist < maxRelists {
			continue
		}
		return nil, err
	}
}

// listPages lists every page of r once. On an error the objects already
// counted in the progress line are taken back: a relist counts them again.
func (c *capturer) listPages(ctx context.Context, x *snapshotio.Extractor, r snapshot.Resource, ns string) ([]snapshot.Object, error) {
	var objs []snapshot.Object
	cont := ""
	for {
		page, next, err := c.listPage(ctx, x, r, ns, cont)
		if err != nil {
			c.objects.Add(-int64(len(objs)))
			return nil, err
		}
		objs = append(objs, page...)
		c.objects.Add(int64(len(page)))
		if next == "" {
			return objs, nil
		}
		cont = next
	}
}

// listPage lists the page of r that cont points to, retrying transient
// failures; a retry asks for the same page again.
func (c *capturer) listPage(ctx context.Context, x *snapshotio.Extractor, r snapshot.Resource, ns, cont string) (page []snapshot.Object, next string, err error) {
	err = c.retry(ctx, func() error {
		var err error
		if rules.HasFacts(r.Group, r.Kind) {
			page, next, err = c.listFullPage(ctx, x, r, ns, cont)
		} else {
			page, next, err = c.listMetaPage(ctx, x, r, ns, cont)
		}
		return err
	})
	return page, next, err
}

// statusFromBody turns the error of a raw request into the API server's
// own Status when the body holds one: client-go's raw requests keep only
// the HTTP code, and the Status message is what names the user and the
// permission missing ("User "bob" cannot list resource "pods" …").
func statusFromBody(body []byte, err error) error {
	if err == nil || len(body) == 0 {
		return err
	}
	var st metav1.Status
	if json.Unmarshal(body, &st) != nil || st.Kind != "Status" || st.Code == 0 {
		return err
	}
	return &apierrors.StatusError{ErrStatus: st}
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

// retry calls fn until it succeeds, fails for good, or was tried
// maxTries times, with jittered exponential backoff honouring
// Retry-After. A request the client timed out on is tried once more
// only: a second timeout means the API server stopped answering, and the
// capture stops (stall) rather than wait --request-timeout for every
// page of every type left.
func (c *capturer) retry(ctx context.Context, fn func() error) error {
	delay := c.backoff
	if delay == 0 {
		delay = 200 * time.Millisecond
	}
	timeouts := 0
	for try := 1; ; try++ {
		err := fn()
		if err != nil && ctx.Err() == nil && clientTimeout(err) {
			if timeouts++; timeouts >= maxTimeouts {
				c.stall(err)
				return err
			}
		}
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

// clientTimeout reports whether err is the client giving up on a
// request after --request-timeout, not an answer of the API server.
func clientTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

// StalledError is a capture's error when the API server stopped
// answering in the middle of it.
type StalledError struct {
	// Timeout is the client's per-request timeout (--request-timeout).
	Timeout time.Duration
	Err     error
}

func (e *StalledError) Error() string {
	return fmt.Sprintf("the API server stopped answering: a request timed out twice after %s (--request-timeout): %v; "+
		"nothing was concluded from a partial read: try again, or raise --request-timeout if the cluster is only slow", e.Timeout, e.Err)
}

func (e *StalledError) Unwrap() error { return e.Err }

// stall stops the capture, once, with a StalledError.
func (c *capturer) stall(err error) {
	if c.abort != nil {
		c.abort(&StalledError{Timeout: c.timeout, Err: err})
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

// metaListAccept asks for a list of metadata only (PartialObjectMetadata),
// protobuf first, as client-go's metadata client does: the server sends no
// spec or status, and protobuf is cheaper for it to encode. A server that
// speaks neither answers plain JSON, which the JSON reader reduces alike.
const metaListAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
	"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"

// listMetaPage lists the metadata of one page of r. The response is read
// straight into the snapshot's objects: decoding it into client-go's
// types first (managedFields, annotations and all) cost a capture most of
// its memory.
func (c *capturer) listMetaPage(ctx context.Context, x *snapshotio.Extractor, r snapshot.Resource, ns, cont string) ([]snapshot.Object, string, error) {
	body, err := c.listRequest(r, ns, cont).SetHeader("Accept", metaListAccept).DoRaw(ctx)
	if err != nil {
		return nil, "", statusFromBody(body, err)
	}
	if snapshotio.IsProtobuf(body) {
		return x.ReadMetaListProto(body, r.GroupVersion(), r.Kind)
	}
	return x.ReadListPage(body, r.GroupVersion(), r.Kind)
}

// listRequest is the GET of one list page of r in namespace ns ("" =
// cluster scope).
func (c *capturer) listRequest(r snapshot.Resource, ns, cont string) *rest.Request {
	path := "/api/" + r.Version
	if r.Group != "" {
		path = "/apis/" + r.Group + "/" + r.Version
	}
	if ns != "" {
		path += "/namespaces/" + ns
	}
	path += "/" + r.Resource
	lo := c.listOptions(cont)
	// c.retry is the only retry loop: client-go's own (10 tries on a 429
	// or 5xx with Retry-After) inside it multiplied every request by 11
	// under throttling, a retry storm.
	req := c.raw.Get().MaxRetries(0).AbsPath(path)
	if lo.Limit > 0 {
		req = req.Param("limit", strconv.FormatInt(lo.Limit, 10))
	}
	if lo.Continue != "" {
		req = req.Param("continue", lo.Continue)
	}
	if lo.ResourceVersion != "" {
		req = req.Param("resourceVersion", lo.ResourceVersion)
	}
	return req
}

// listOptions for one page. Only a first page carries a resourceVersion:
// later pages are pinned by their continue token.
func (c *capturer) listOptions(cont string) metav1.ListOptions {
	lo := metav1.ListOptions{Limit: max(c.opts.PageSize, 0), Continue: cont}
	if cont == "" && !c.opts.ConsistentRead {
		lo.ResourceVersion = "0"
	}
	return lo
}

// listFullPage lists whole objects as JSON and reduces them with the dump
// scanner, for the kinds whose Facts need spec or status.
func (c *capturer) listFullPage(ctx context.Context, x *snapshotio.Extractor, r snapshot.Resource, ns, cont string) ([]snapshot.Object, string, error) {
	body, err := c.listRequest(r, ns, cont).DoRaw(ctx)
	if err != nil {
		return nil, "", statusFromBody(body, err)
	}
	return x.ReadListPage(body, r.GroupVersion(), r.Kind)
}

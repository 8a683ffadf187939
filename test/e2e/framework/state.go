package framework

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Common resources the tests use.
var (
	ConfigMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	Secrets     = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	Pods        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	RCs         = schema.GroupVersionResource{Version: "v1", Resource: "replicationcontrollers"}
	Namespaces  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	CRDResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// ObjState is the part of an object's state that deletion changes and that a
// kgc plan predicts (objects[].final).
type ObjState struct {
	GVR         schema.GroupVersionResource
	Kind        string
	Namespace   string
	Name        string
	UID         string
	Exists      bool
	Terminating bool
	Finalizers  []string
	OwnerUIDs   []string
	// OwnerNames are "Kind/name" of OwnerUIDs, in the same order.
	OwnerNames []string
}

func (s ObjState) String() string {
	where := s.Name
	if s.Namespace != "" {
		where = s.Namespace + "/" + s.Name
	}
	if !s.Exists {
		return fmt.Sprintf("%s %s uid=%s: gone", s.Kind, where, s.UID)
	}
	return fmt.Sprintf("%s %s uid=%s: terminating=%v finalizers=%v owners=%v", s.Kind, where, s.UID, s.Terminating, s.Finalizers, s.OwnerUIDs)
}

// StateOf extracts ObjState from a live object.
func StateOf(gvr schema.GroupVersionResource, u *unstructured.Unstructured) ObjState {
	s := ObjState{
		GVR: gvr, Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName(), UID: string(u.GetUID()),
		Exists: true, Terminating: u.GetDeletionTimestamp() != nil,
		Finalizers: append([]string{}, u.GetFinalizers()...),
		OwnerUIDs:  []string{},
	}
	for _, r := range u.GetOwnerReferences() {
		s.OwnerUIDs = append(s.OwnerUIDs, string(r.UID))
		s.OwnerNames = append(s.OwnerNames, r.Kind+"/"+r.Name)
	}
	return s
}

// Scope says which objects belong to a test case: everything of the given
// namespaced resources in Namespace, plus cluster-scoped objects carrying
// the label selector ClusterSelector.
type Scope struct {
	Namespace string
	// ExtraNamespaces are listed like Namespace (cases that span namespaces).
	ExtraNamespaces []string
	Namespaced      []schema.GroupVersionResource
	Cluster         []schema.GroupVersionResource
	ClusterSelector string
}

// Capture lists the scope's objects, keyed by UID.
func (e *Env) Capture(ctx context.Context, sc Scope) (map[string]ObjState, error) {
	out := map[string]ObjState{}
	add := func(gvr schema.GroupVersionResource, ns, sel string) error {
		list, err := e.Dynamic.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			if apierrors.IsNotFound(err) && ns != "" {
				return nil // namespace gone
			}
			return fmt.Errorf("listing %s in %q: %w", gvr, ns, err)
		}
		for i := range list.Items {
			s := StateOf(gvr, &list.Items[i])
			out[s.UID] = s
		}
		return nil
	}
	for _, ns := range append([]string{sc.Namespace}, sc.ExtraNamespaces...) {
		for _, gvr := range sc.Namespaced {
			if err := add(gvr, ns, ""); err != nil {
				return nil, err
			}
		}
	}
	for _, gvr := range sc.Cluster {
		if err := add(gvr, "", sc.ClusterSelector); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Fingerprint renders states in a canonical order, for change detection and
// for failure messages.
func Fingerprint(states map[string]ObjState) string {
	lines := make([]string, 0, len(states))
	for _, s := range states {
		lines = append(lines, s.String())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// WaitSettled polls capture until its result has not changed for `quiet`,
// and returns that result. The GC has no "idle" signal, so quiet time is the
// only observable; callers choose it longer than the GC's usual reaction
// (milliseconds) and shorter than its periodic resync.
func WaitSettled(ctx context.Context, quiet, timeout time.Duration, capture func(context.Context) (string, error)) (string, error) {
	deadline := time.Now().Add(timeout)
	last, err := capture(ctx)
	if err != nil {
		return "", err
	}
	since := time.Now()
	for {
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("waiting for quiet: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
		cur, err := capture(ctx)
		if err != nil {
			return last, err
		}
		if cur != last {
			last, since = cur, time.Now()
		}
		if time.Since(since) >= quiet {
			return last, nil
		}
		if time.Now().After(deadline) {
			return last, fmt.Errorf("state still changing after %s; last state:\n%s", timeout, last)
		}
	}
}

// Settle waits until the scope's objects stop changing and returns them.
func (e *Env) Settle(ctx context.Context, sc Scope, quiet, timeout time.Duration) (map[string]ObjState, error) {
	var states map[string]ObjState
	_, err := WaitSettled(ctx, quiet, timeout, func(ctx context.Context) (string, error) {
		s, err := e.Capture(ctx, sc)
		if err != nil {
			return "", err
		}
		states = s
		return Fingerprint(s), nil
	})
	return states, err
}

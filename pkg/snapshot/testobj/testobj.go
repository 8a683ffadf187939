// Package testobj builds snapshot objects and snapshots for tests, so that
// a test reads as the situation it sets up ("a Pod owned by a ReplicaSet,
// terminating with a finalizer") instead of nested literals. It is only for
// tests: UIDs default to readable, deterministic strings.
package testobj

import (
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Builder builds one snapshot.Object.
type Builder struct{ o snapshot.Object }

// New starts an object of any type. The UID defaults to
// "<kind>-<namespace>-<name>" in lower case, so tests that do not care about
// UIDs still get unique, readable ones.
func New(apiVersion, kind, namespace, name string) *Builder {
	uid := strings.ToLower(kind) + "-" + name
	if namespace != "" {
		uid = strings.ToLower(kind) + "-" + namespace + "-" + name
	}
	return &Builder{o: snapshot.Object{
		APIVersion: apiVersion,
		Kind:       kind,
		Metadata:   snapshot.ObjectMeta{Namespace: namespace, Name: name, UID: uid},
	}}
}

// Namespaced built-in types.
func Pod(ns, name string) *Builder         { return New("v1", "Pod", ns, name) }
func ConfigMap(ns, name string) *Builder   { return New("v1", "ConfigMap", ns, name) }
func Secret(ns, name string) *Builder      { return New("v1", "Secret", ns, name) }
func Service(ns, name string) *Builder     { return New("v1", "Service", ns, name) }
func PVC(ns, name string) *Builder         { return New("v1", "PersistentVolumeClaim", ns, name) }
func Event(ns, name string) *Builder       { return New("v1", "Event", ns, name) }
func Deployment(ns, name string) *Builder  { return New("apps/v1", "Deployment", ns, name) }
func ReplicaSet(ns, name string) *Builder  { return New("apps/v1", "ReplicaSet", ns, name) }
func StatefulSet(ns, name string) *Builder { return New("apps/v1", "StatefulSet", ns, name) }
func DaemonSet(ns, name string) *Builder   { return New("apps/v1", "DaemonSet", ns, name) }
func Job(ns, name string) *Builder         { return New("batch/v1", "Job", ns, name) }
func CronJob(ns, name string) *Builder     { return New("batch/v1", "CronJob", ns, name) }

// Cluster-scoped built-in types.
func Namespace(name string) *Builder { return New("v1", "Namespace", "", name) }
func Node(name string) *Builder      { return New("v1", "Node", "", name) }
func PV(name string) *Builder        { return New("v1", "PersistentVolume", "", name) }
func ClusterRole(name string) *Builder {
	return New("rbac.authorization.k8s.io/v1", "ClusterRole", "", name)
}

// UID sets metadata.uid.
func (b *Builder) UID(uid string) *Builder { b.o.Metadata.UID = uid; return b }

// Finalizers appends to metadata.finalizers.
func (b *Builder) Finalizers(f ...string) *Builder {
	b.o.Metadata.Finalizers = append(b.o.Metadata.Finalizers, f...)
	return b
}

// Deleting sets metadata.deletionTimestamp: the object is terminating.
func (b *Builder) Deleting(at time.Time) *Builder {
	t := at.UTC()
	b.o.Metadata.DeletionTimestamp = &t
	return b
}

// Created sets metadata.creationTimestamp.
func (b *Builder) Created(at time.Time) *Builder {
	t := at.UTC()
	b.o.Metadata.CreationTimestamp = &t
	return b
}

// ResourceVersion sets metadata.resourceVersion.
func (b *Builder) ResourceVersion(rv string) *Builder { b.o.Metadata.ResourceVersion = rv; return b }

// Label sets one label.
func (b *Builder) Label(k, v string) *Builder {
	if b.o.Metadata.Labels == nil {
		b.o.Metadata.Labels = map[string]string{}
	}
	b.o.Metadata.Labels[k] = v
	return b
}

// Facts sets the object's facts.
func (b *Builder) Facts(f *snapshot.Facts) *Builder { b.o.Facts = f; return b }

// OwnedBy adds an owner reference to owner the way workload controllers set
// it: controller=true, blockOwnerDeletion=true.
func (b *Builder) OwnedBy(owner snapshot.Object) *Builder {
	return b.Owner(Ref(owner, Controller, Block))
}

// Owner appends a raw owner reference (it may be invalid on purpose).
func (b *Builder) Owner(ref snapshot.OwnerReference) *Builder {
	b.o.Metadata.OwnerReferences = append(b.o.Metadata.OwnerReferences, ref)
	return b
}

// Build returns the object. The builder can keep being used; the returned
// object shares no slices with it.
func (b *Builder) Build() snapshot.Object {
	o := b.o
	o.Metadata.Finalizers = append([]string(nil), b.o.Metadata.Finalizers...)
	o.Metadata.OwnerReferences = append([]snapshot.OwnerReference(nil), b.o.Metadata.OwnerReferences...)
	if b.o.Metadata.Labels != nil {
		o.Metadata.Labels = map[string]string{}
		for k, v := range b.o.Metadata.Labels {
			o.Metadata.Labels[k] = v
		}
	}
	return o
}

// RefOption changes an owner reference built by Ref.
type RefOption func(*snapshot.OwnerReference)

// Controller sets controller=true.
func Controller(r *snapshot.OwnerReference) { t := true; r.Controller = &t }

// Block sets blockOwnerDeletion=true.
func Block(r *snapshot.OwnerReference) { t := true; r.BlockOwnerDeletion = &t }

// NoBlock sets blockOwnerDeletion=false explicitly.
func NoBlock(r *snapshot.OwnerReference) { f := false; r.BlockOwnerDeletion = &f }

// Ref returns an owner reference to obj, with neither controller nor
// blockOwnerDeletion set unless options say so.
func Ref(obj snapshot.Object, opts ...RefOption) snapshot.OwnerReference {
	r := snapshot.OwnerReference{APIVersion: obj.APIVersion, Kind: obj.Kind, Name: obj.Metadata.Name, UID: obj.Metadata.UID}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// RefTo returns an owner reference from coordinates, for owners that are
// not in the snapshot.
func RefTo(apiVersion, kind, name, uid string, opts ...RefOption) snapshot.OwnerReference {
	r := snapshot.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid}
	for _, o := range opts {
		o(&r)
	}
	return r
}

package rules

import "github.com/kgc-dev/kgc/pkg/snapshot"

// Class objects name controllers. An IngressClass's spec.controller, a
// GatewayClass's spec.controllerName, a StorageClass's provisioner and a
// VolumeSnapshotClass's driver say which implementation acts on the
// objects of the class (an Ingress's spec.ingressClassName, a Gateway's
// spec.gatewayClassName, a claim's or volume's spec.storageClassName, a
// VolumeSnapshot's spec.volumeSnapshotClassName); a Service's
// spec.loadBalancerClass and a VolumeSnapshotContent's spec.driver name
// theirs directly. The implementation adds the finalizers of its objects
// and removes them, so the class is evidence of who removes a finalizer
// no other rule names (ClassOwnsFinalizer).

// ClassKind is one kind of class object: its group and kind, and the
// field that names its controller.
type ClassKind struct {
	Group, Kind string
	// Field is the class's field naming the controller, as the API
	// spells it ("spec.controllerName").
	Field string
}

// The class kinds.
var (
	IngressClass        = ClassKind{"networking.k8s.io", "IngressClass", "spec.controller"}
	GatewayClass        = ClassKind{"gateway.networking.k8s.io", "GatewayClass", "spec.controllerName"}
	StorageClass        = ClassKind{"storage.k8s.io", "StorageClass", "provisioner"}
	VolumeSnapshotClass = ClassKind{"snapshot.storage.k8s.io", "VolumeSnapshotClass", "driver"}
)

// FinalizerSnapshotContent is the external-snapshotter's protection of a
// VolumeSnapshotContent, which the CSI driver's csi-snapshotter sidecar
// removes once it deleted the snapshot (kubernetes-csi/external-snapshotter
// pkg/sidecar-controller/snapshot_controller.go, removeContentFinalizer);
// FinalizerCloneSource the external-provisioner's protection of a claim
// being cloned (kubernetes-csi/external-provisioner
// pkg/controller/clone_controller.go), which it removes once the clones
// are provisioned.
const (
	FinalizerSnapshotContent = "snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection"
	FinalizerCloneSource     = "provisioner.storage.kubernetes.io/cloning-protection"
)

// ClassRef is what an object says about the implementation that owns it:
// the class it names (Kind and Name, by its field Field), or the
// controller it names itself (Controller, by Field). Kind is zero for
// the latter.
type ClassRef struct {
	Kind       ClassKind
	Name       string
	Controller string
	Field      string
}

// ClassOf returns what o's facts say of its class: a class object names
// its own controller; an Ingress, Gateway, claim, volume or
// VolumeSnapshot its class; a Service of a load balancer class, a
// VolumeSnapshotContent and a volume whose provisioner the volume itself
// names (VolumeReclaimer) their controller.
func ClassOf(o *snapshot.Object) (ClassRef, bool) {
	f := o.Facts
	if f == nil {
		return ClassRef{}, false
	}
	group := snapshot.GroupOf(o.APIVersion)
	switch {
	case f.Service != nil && f.Service.LoadBalancerClass != "":
		return ClassRef{Controller: f.Service.LoadBalancerClass, Field: "spec.loadBalancerClass"}, true
	case f.PVC != nil && f.PVC.StorageClass != "":
		return ClassRef{Kind: StorageClass, Name: f.PVC.StorageClass, Field: "spec.storageClassName"}, true
	case f.PV != nil:
		if rec := VolumeReclaimer(f.PV, ""); rec.External != "" {
			field := "pv.kubernetes.io/provisioned-by annotation"
			if rec.External == f.PV.Driver {
				field = "spec.csi.driver"
			}
			return ClassRef{Controller: rec.External, Field: field}, true
		}
		if f.PV.StorageClass != "" {
			return ClassRef{Kind: StorageClass, Name: f.PV.StorageClass, Field: "spec.storageClassName"}, true
		}
	case f.Class == nil:
	case f.Class.Controller != "":
		if k, ok := classKindOf(group, o.Kind); ok {
			return ClassRef{Controller: f.Class.Controller, Field: k.Field}, true
		}
		return ClassRef{Controller: f.Class.Controller, Field: "spec.driver"}, true
	case f.Class.Name != "":
		if k, field, ok := memberClass(group, o.Kind); ok {
			return ClassRef{Kind: k, Name: f.Class.Name, Field: field}, true
		}
	}
	return ClassRef{}, false
}

// MemberClassKind is the class kind objects of group and kind name (and
// the field naming it), for the default class of an object naming none.
func MemberClassKind(group, kind string) (ClassKind, bool) {
	k, _, ok := memberClass(group, kind)
	return k, ok
}

// memberClass is the class kind objects of group and kind name, and the
// field they name it by.
func memberClass(group, kind string) (ClassKind, string, bool) {
	switch {
	case group == "networking.k8s.io" && kind == "Ingress":
		return IngressClass, "spec.ingressClassName", true
	case group == "gateway.networking.k8s.io" && kind == "Gateway":
		return GatewayClass, "spec.gatewayClassName", true
	case group == "snapshot.storage.k8s.io" && (kind == "VolumeSnapshot" || kind == "VolumeSnapshotContent"):
		return VolumeSnapshotClass, "spec.volumeSnapshotClassName", true
	}
	return ClassKind{}, "", false
}

// classKindOf is the ClassKind of a class object's group and kind.
func classKindOf(group, kind string) (ClassKind, bool) {
	for _, k := range []ClassKind{IngressClass, GatewayClass, StorageClass, VolumeSnapshotClass} {
		if k.Group == group && k.Kind == kind {
			return k, true
		}
	}
	return ClassKind{}, false
}

// ClassOwnsFinalizer reports whether the implementation a class names
// removes finalizer f of an object of the class: a finalizer only such an
// implementation removes (the load-balancer cleanup of a classed Service,
// a volume's external-provisioner finalizer, a snapshot content's, a
// clone source's), or one nothing else names: not Kubernetes' own
// (another controller removes it), not a well-known project's (the
// project table names its controller, which the class cannot contradict).
func ClassOwnsFinalizer(f string) bool {
	switch f {
	case FinalizerLB, FinalizerExtProv, FinalizerSnapshotContent, FinalizerCloneSource:
		return true
	}
	if _, ok := wellKnownFinalizer(f); ok {
		return false
	}
	if _, ok := ecosystemFinalizer(f, ""); ok {
		return false
	}
	_, ok := ProjectOf(f)
	return !ok
}

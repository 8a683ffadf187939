package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

func classObj(apiVersion, kind, name, controller string, def bool) snapshot.Object {
	return testobj.New(apiVersion, kind, "", name).Facts(&snapshot.Facts{Class: &snapshot.ClassFacts{Controller: controller, Default: def}}).Build()
}

func ofClass(b *testobj.Builder, class string) *testobj.Builder {
	return b.Facts(&snapshot.Facts{Class: &snapshot.ClassFacts{Name: class}})
}

// TestClassObjectNamesTheController: a class object names the controller
// that owns the objects of its class and their finalizers; why-stuck
// names it as class-object evidence, and says whether a workload
// implementing it is in the input. Modelled on public reports:
//   - Ingresses stuck on their controller's finalizer once it was
//     uninstalled (https://github.com/kcp-dev/kcp-glbc/issues/469, a
//     controller's own kuadrant.dev/cascade-cleanup; the class names it);
//   - a GatewayClass held by gateway-exists-finalizer after Envoy Gateway
//     was uninstalled (https://github.com/envoyproxy/gateway/issues/1362,
//     https://github.com/envoyproxy/gateway/issues/7287): the class names
//     its own controller;
//   - a VolumeSnapshotContent held by its bound-protection finalizer,
//     which the driver's csi-snapshotter sidecar removes once it deleted
//     the snapshot (kubernetes-csi/external-snapshotter
//     pkg/sidecar-controller/snapshot_controller.go);
//   - a claim held by the external-provisioner's cloning protection, which
//     the provisioner its StorageClass names removes.
func TestClassObjectNamesTheController(t *testing.T) {
	hour := ago(time.Hour)
	nginx := classObj("networking.k8s.io/v1", "IngressClass", "nginx", "k8s.io/ingress-nginx", false)
	ing := gone(ofClass(testobj.New("networking.k8s.io/v1", "Ingress", "shop", "web"), "nginx").Deleting(hour).Finalizers("kuadrant.dev/cascade-cleanup").Build())
	nginxCtl := controllerWorkload(testobj.Deployment("ingress-nginx", "ingress-nginx-controller"), "ingress-nginx", 1)
	egClass := gone(testobj.New("gateway.networking.k8s.io/v1", "GatewayClass", "", "eg").Deleting(hour).Finalizers("gateway-exists-finalizer.gateway.networking.k8s.io").
		Facts(&snapshot.Facts{Class: &snapshot.ClassFacts{Controller: "gateway.envoyproxy.io/gatewayclass-controller"}}).Build())
	vsc := classObj("snapshot.storage.k8s.io/v1", "VolumeSnapshotClass", "csi-aws-vsc", "ebs.csi.aws.com", false)
	content := gone(testobj.New("snapshot.storage.k8s.io/v1", "VolumeSnapshotContent", "", "snapcontent-1").Deleting(hour).Finalizers(rules.FinalizerSnapshotContent).
		Facts(&snapshot.Facts{Class: &snapshot.ClassFacts{Controller: "ebs.csi.aws.com", Name: "csi-aws-vsc"}}).Build())
	ebsCtl := controllerWorkload(testobj.Deployment("kube-system", "ebs-csi-controller"), "ebs-csi-controller-sa", 2)
	gp3 := classObj("storage.k8s.io/v1", "StorageClass", "gp3", "ebs.csi.aws.com", true)
	claim := gone(testobj.PVC("shop", "data").Deleting(hour).Finalizers(rules.FinalizerCloneSource).
		Facts(&snapshot.Facts{PVC: &snapshot.PVCFacts{Phase: "Bound", VolumeName: "pv-1", StorageClass: "gp3"}}).Build())
	for _, tc := range []struct {
		name       string
		objs       []snapshot.Object
		held       snapshot.Object
		finalizer  string
		reason     string
		controller string
		says       []string
	}{
		{"an Ingress whose IngressClass's controller was uninstalled", []snapshot.Object{nginx, ing, testobj.Deployment("shop", "web").Build()}, ing, "kuadrant.dev/cascade-cleanup",
			ReasonControllerAbsent, "k8s.io/ingress-nginx", []string{"class object: IngressClass/nginx names controller k8s.io/ingress-nginx", "named like it (ingress-nginx)"}},
		{"an Ingress whose IngressClass's controller runs", []snapshot.Object{nginx, ing, nginxCtl}, ing, "kuadrant.dev/cascade-cleanup",
			ReasonControllerNotFinishing, "k8s.io/ingress-nginx", []string{"class object: IngressClass/nginx", "Deployment/ingress-nginx-controller -n ingress-nginx"}},
		{"a GatewayClass names its own controller", []snapshot.Object{egClass, testobj.Deployment("shop", "web").Build()}, egClass, "gateway-exists-finalizer.gateway.networking.k8s.io",
			ReasonControllerAbsent, "gateway.envoyproxy.io/gatewayclass-controller", []string{"GatewayClass/eg names controller gateway.envoyproxy.io/gatewayclass-controller (its spec.controllerName)"}},
		{"a snapshot content's driver runs", []snapshot.Object{vsc, content, ebsCtl}, content, rules.FinalizerSnapshotContent,
			ReasonControllerNotFinishing, "ebs.csi.aws.com", []string{"VolumeSnapshotContent/snapcontent-1 names controller ebs.csi.aws.com (its spec.driver)", "Deployment/ebs-csi-controller -n kube-system"}},
		{"a clone source's StorageClass provisioner is gone", []snapshot.Object{gp3, claim, testobj.Deployment("shop", "web").Build()}, claim, rules.FinalizerCloneSource,
			ReasonControllerAbsent, "ebs.csi.aws.com", []string{"class object: StorageClass/gp3 names controller ebs.csi.aws.com (its provisioner)", "ebs-csi, csi-ebs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(testobj.Snapshot(tc.objs...).CRD("gateway.networking.k8s.io", "GatewayClass", "gatewayclasses", false).
				CRD("snapshot.storage.k8s.io", "VolumeSnapshotContent", "volumesnapshotcontents", false).
				CRD("snapshot.storage.k8s.io", "VolumeSnapshotClass", "volumesnapshotclasses", false).Build(), nil, Options{}).Diagnose(tc.held.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc := onFinalizer(t, d, tc.held, tc.finalizer)
			if rc.Reason != tc.reason || rc.Attribution == nil || rc.Attribution.Evidence != EvidenceClass || rc.Controller != tc.controller || rc.RemovedBy != tc.controller {
				t.Errorf("%s, removed by %s, controller %s (%+v): %s", rc.Reason, rc.RemovedBy, rc.Controller, rc.Attribution, rc.Message)
			}
			all := rc.Message + " " + rc.Attribution.Detail
			for _, r := range rc.Remedies {
				all += " " + r.Description + " " + r.Command
			}
			for _, s := range tc.says {
				if !strings.Contains(all, s) {
					t.Errorf("missing %q in %s", s, all)
				}
			}
		})
	}
}

// TestClassEvidenceKnowsItsPlace: a class is evidence only for finalizers
// nothing else names. The AWS Load Balancer Controller's own finalizer
// stays its project's even on an Ingress of another class (an Ingress
// stuck once that controller was deleted:
// https://github.com/kubernetes/kubernetes/issues/95983); Kubernetes' own
// finalizers keep their controllers; an Ingress naming no class is of the
// one default IngressClass; a workload is not the implementation of
// example.com/lb for having "lb" in its name; a class object missing from
// the input names nothing (its Ingresses were left behind:
// https://github.com/oracle/oci-native-ingress-controller/pull/87).
func TestClassEvidenceKnowsItsPlace(t *testing.T) {
	hour := ago(time.Hour)
	nginx := classObj("networking.k8s.io/v1", "IngressClass", "nginx", "k8s.io/ingress-nginx", true)
	other := classObj("networking.k8s.io/v1", "IngressClass", "other", "example.com/other", false)
	alb := gone(ofClass(testobj.New("networking.k8s.io/v1", "Ingress", "game", "ingress-2048"), "nginx").Deleting(hour).Finalizers("ingress.k8s.aws/resources").Build())
	plain := gone(ofClass(testobj.New("networking.k8s.io/v1", "Ingress", "shop", "plain"), "").Deleting(hour).Finalizers("example.com/cleanup").Build())
	orphaned := gone(ofClass(testobj.New("networking.k8s.io/v1", "Ingress", "shop", "orphaned"), "oci").Deleting(hour).Finalizers("oci.oraclecloud.com/ingress-controller-protection").Build())
	claim := gone(testobj.PVC("shop", "data").Deleting(hour).Finalizers(rules.FinalizerPVC).
		Facts(&snapshot.Facts{PVC: &snapshot.PVCFacts{Phase: "Bound", StorageClass: "gp3"}}).Build())
	gp3 := classObj("storage.k8s.io/v1", "StorageClass", "gp3", "ebs.csi.aws.com", false)
	lb := gone(testobj.Service("shop", "front").Deleting(hour).Finalizers(rules.FinalizerLB).
		Facts(&snapshot.Facts{Service: &snapshot.ServiceFacts{Type: "LoadBalancer", LoadBalancerClass: "example.com/lb"}}).Build())
	proxy := controllerWorkload(testobj.Deployment("shop", "web-lb-proxy"), "default", 1)
	s := testobj.Snapshot(nginx, other, alb, plain, orphaned, claim, gp3, lb, proxy, testobj.Deployment("shop", "web").Build()).Build()
	diag := func(o snapshot.Object, f string) RootCause {
		t.Helper()
		d, err := New(s, nil, Options{}).Diagnose(o.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		return onFinalizer(t, d, o, f)
	}
	if rc := diag(alb, "ingress.k8s.aws/resources"); rc.Attribution == nil || rc.Attribution.Evidence == EvidenceClass || !strings.Contains(rc.Controller, "AWS Load Balancer Controller") {
		t.Errorf("a project's finalizer went to the class: %s by %s (%+v)", rc.Reason, rc.Controller, rc.Attribution)
	}
	if rc := diag(plain, "example.com/cleanup"); rc.Attribution == nil || rc.Attribution.Evidence != EvidenceClass || rc.Controller != "k8s.io/ingress-nginx" ||
		!strings.Contains(rc.Attribution.Detail, "it names no class, and IngressClass/nginx is the default") {
		t.Errorf("an Ingress naming no class is not the default class's: %s by %s (%+v)", rc.Reason, rc.Controller, rc.Attribution)
	}
	if rc := diag(orphaned, "oci.oraclecloud.com/ingress-controller-protection"); rc.Attribution != nil && rc.Attribution.Evidence == EvidenceClass {
		t.Errorf("a class missing from the input named a controller: %+v", rc.Attribution)
	}
	if rc := diag(lb, rules.FinalizerLB); rc.Reason != ReasonControllerAbsent || rc.Controller != "example.com/lb" {
		t.Errorf("a class's controller was found in a workload sharing two letters with it: %s by %s: %s", rc.Reason, rc.Controller, rc.Message)
	}
	if rc := diag(claim, rules.FinalizerPVC); rc.RemovedBy != rules.ActorPVCProtection {
		t.Errorf("pvc-protection went to %s (%+v)", rc.RemovedBy, rc.Attribution)
	}
}

package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestLoadBalancerClassNamesTheController: a Service of type LoadBalancer
// with spec.loadBalancerClass is not the cloud-controller-manager's (KEP
// 1959: the cloud provider's service controller leaves classed Services to
// their implementation): its class names who removes the load-balancer
// finalizer, as class-object evidence
// (https://github.com/kubernetes/enhancements/tree/master/keps/sig-cloud-provider/1959-service-lb-class-field).
func TestLoadBalancerClassNamesTheController(t *testing.T) {
	svc := gone(testobj.Service("web", "front").Deleting(ago(time.Hour)).Finalizers(rules.FinalizerLB).
		Facts(&snapshot.Facts{Service: &snapshot.ServiceFacts{Type: "LoadBalancer", LoadBalancerClass: "service.k8s.aws/nlb"}}).Build())
	ctl := controllerWorkload(testobj.Deployment("kube-system", "aws-load-balancer-controller"), "aws-load-balancer-controller", 1)
	for _, tc := range []struct {
		name   string
		objs   []snapshot.Object
		reason string
		says   string
	}{
		{"its implementation absent", []snapshot.Object{svc, testobj.Deployment("web", "app").Build()}, ReasonControllerAbsent, "not in the input"},
		{"its implementation running", []snapshot.Object{svc, ctl}, ReasonControllerNotFinishing, "Deployment/aws-load-balancer-controller -n kube-system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(testobj.Snapshot(tc.objs...).Build(), nil, Options{}).Diagnose(svc.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			rc := onFinalizer(t, d, svc, rules.FinalizerLB)
			if rc.Reason != tc.reason || rc.Attribution == nil || rc.Attribution.Evidence != EvidenceClass ||
				!strings.Contains(rc.Controller, "AWS Load Balancer Controller") || !strings.Contains(rc.Message, tc.says) {
				t.Errorf("%s by %s (%+v): %s", rc.Reason, rc.Controller, rc.Attribution, rc.Message)
			}
		})
	}
}

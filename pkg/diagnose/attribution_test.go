package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestAttributionEvidence: who removes a third-party finalizer is named on
// evidence only, and never by a word shared with a workload's name.
func TestAttributionEvidence(t *testing.T) {
	// A load-balancer finalizer of the AWS Load Balancer Controller, in a
	// cluster running the AWS EBS CSI driver: "aws" is no evidence.
	awsSvc := gone(testobj.Service("shop", "front").Deleting(ago(time.Hour)).Finalizers("service.k8s.aws/resources").Build())
	ebs := testobj.Deployment("kube-system", "ebs-csi-controller").Label("app.kubernetes.io/part-of", "aws-ebs-csi-driver").Label("app.kubernetes.io/name", "aws").Build()
	lbc := testobj.Deployment("kube-system", "aws-load-balancer-controller").Label("app.kubernetes.io/name", "aws-load-balancer-controller").Build()

	// A Crossplane managed resource whose provider was uninstalled while
	// Crossplane's core still runs: the core is not the provider.
	core := testobj.Deployment("crossplane-system", "crossplane").Label("app", "crossplane").Label("app.kubernetes.io/part-of", "crossplane").Build()
	revRef := snapshot.OwnerReference{APIVersion: "pkg.crossplane.io/v1", Kind: "ProviderRevision", Name: "provider-aws-s3-1a2b3c", UID: "rev-uid", Controller: ptrTrue()}
	bucketCRD := testobj.New("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "buckets.s3.aws.upbound.io").Owner(revRef).
		Facts(&snapshot.Facts{CRD: &snapshot.CRDFacts{Group: "s3.aws.upbound.io", Kind: "Bucket", Plural: "buckets", Scope: "Cluster"}}).Build()
	bucket := gone(testobj.New("s3.aws.upbound.io/v1beta1", "Bucket", "", "logs").Deleting(ago(time.Hour)).Finalizers("finalizer.managedresource.crossplane.io").Build())
	rev := testobj.New("pkg.crossplane.io/v1", "ProviderRevision", "", "provider-aws-s3-1a2b3c").UID("rev-uid").Build()
	providerDeploy := testobj.Deployment("crossplane-system", "provider-aws-s3-1a2b3c").Owner(snapshot.OwnerReference{APIVersion: "pkg.crossplane.io/v1", Kind: "ProviderRevision", Name: "provider-aws-s3-1a2b3c", UID: "rev-uid", Controller: ptrTrue()}).Build()

	argoApp := gone(testobj.New("argoproj.io/v1alpha1", "Application", "argocd", "shop").Deleting(ago(time.Hour)).Finalizers("resources-finalizer.argocd.argoproj.io").Build())
	argoCtrl := testobj.StatefulSet("argocd", "argocd-application-controller").Build()

	crossplane := func(b *testobj.SnapshotBuilder) *testobj.SnapshotBuilder {
		return b.CRD("s3.aws.upbound.io", "Bucket", "buckets", false).CRD("pkg.crossplane.io", "ProviderRevision", "providerrevisions", false)
	}
	tests := []struct {
		name       string
		snap       *snapshot.Snapshot
		target     snapshot.Object
		reason     string
		evidence   string
		confidence string
		says       string
		logsOf     string // the workload whose logs are offered; "" = none
	}{
		{"well-known, controller absent (a lookalike runs)", testobj.Snapshot(awsSvc, ebs).Build(), awsSvc,
			ReasonControllerAbsent, EvidenceWellKnown, ConfidenceHigh, "AWS Load Balancer Controller removes service.k8s.aws/resources", ""},
		{"well-known, controller runs", testobj.Snapshot(awsSvc, ebs, lbc).Build(), awsSvc,
			ReasonControllerPending, EvidenceWellKnown, ConfidenceHigh, "AWS Load Balancer Controller runs (Deployment/aws-load-balancer-controller -n kube-system)", "deployment/aws-load-balancer-controller"},
		{"well-known by published name", testobj.Snapshot(argoApp, argoCtrl).Build(), argoApp,
			ReasonControllerPending, EvidenceWellKnown, ConfidenceHigh, "Argo CD application controller runs", "statefulset/argocd-application-controller"},
		{"CRD owner gone: the provider was uninstalled", crossplane(testobj.Snapshot(bucket, bucketCRD, core)).Build(), bucket,
			ReasonControllerAbsent, EvidenceCRDOwner, ConfidenceHigh, "ProviderRevision/provider-aws-s3-1a2b3c, which is gone", ""},
		{"CRD owner present with its workload", crossplane(testobj.Snapshot(bucket, bucketCRD, core, rev, providerDeploy)).Build(), bucket,
			ReasonControllerPending, EvidenceCRDOwner, ConfidenceMedium, "runs (Deployment/provider-aws-s3-1a2b3c -n crossplane-system)", "deployment/provider-aws-s3-1a2b3c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(tc.snap, nil, Options{}).Diagnose(tc.target.Metadata.UID)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.RootCauses) != 1 {
				t.Fatalf("%d root causes:\n%s", len(d.RootCauses), describe(d.RootCauses))
			}
			rc := d.RootCauses[0]
			if rc.Reason != tc.reason {
				t.Errorf("reason %s, want %s: %s", rc.Reason, tc.reason, rc.Message)
			}
			if a := rc.Attribution; a == nil || a.Evidence != tc.evidence || a.Confidence != tc.confidence || a.Detail == "" {
				t.Errorf("attribution %+v, want %s with %s confidence", a, tc.evidence, tc.confidence)
			}
			if !strings.Contains(rc.Message, tc.says) {
				t.Errorf("message %q lacks %q", rc.Message, tc.says)
			}
			logs := ""
			for _, r := range rc.Remedies {
				if strings.HasPrefix(r.Command, "kubectl logs ") {
					logs = strings.Fields(r.Command)[2]
				}
				for _, wrong := range []string{"ebs-csi", "deployment/crossplane "} {
					if strings.Contains(r.Command+" ", wrong) || strings.Contains(r.Description, wrong) {
						t.Errorf("remedy names %s, which no evidence names: %+v", wrong, r)
					}
				}
			}
			if logs != tc.logsOf {
				t.Errorf("logs of %q, want %q", logs, tc.logsOf)
			}
		})
	}
}

func ptrTrue() *bool { b := true; return &b }

package rules_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/rules"
)

// TestProjects checks every row of the well-known projects' table: its
// example finalizer resolves to it (a provider's row beating its
// framework's), it is sourced, says where its controller runs and how to
// uninstall without a stuck deletion, and its controller is recognised
// under the first name it is published as. The examples are finalizers
// under each project's domain, as its source names them.
func TestProjects(t *testing.T) {
	if len(rules.Projects) < 60 {
		t.Errorf("%d projects, want at least 60", len(rules.Projects))
	}
	if !slices.IsSortedFunc(rules.Projects, func(a, b rules.Project) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) }) {
		t.Errorf("the table is not sorted by name")
	}
	for _, p := range rules.Projects {
		t.Run(p.Name, func(t *testing.T) {
			got, ok := rules.ProjectOf(p.Example)
			if !ok || got.Name != p.Name {
				t.Errorf("%s resolves to %q, want %q", p.Example, got.Name, p.Name)
			}
			if !strings.HasPrefix(p.Source, "https://") || p.Controller == "" || p.Namespace == "" || p.Uninstall == "" || len(p.Workloads) == 0 {
				t.Errorf("incomplete row %+v", p)
			}
			ns, name := p.Namespace, strings.ReplaceAll(p.Workloads[0], "*", "x")
			if n, w, ok := strings.Cut(name, "/"); ok {
				ns, name = n, w
			}
			if !p.PublishedAs(ns, name, "") || !p.PublishedAs("elsewhere", "other", name) && !strings.Contains(p.Workloads[0], "/") {
				t.Errorf("%s/%s (or the label app.kubernetes.io/name=%s) is not recognised as %s's controller", ns, name, name, p.Name)
			}
			if p.PublishedAs(ns, "unrelated-controller", "") {
				t.Errorf("unrelated-controller is taken for %s's controller", p.Name)
			}
			fi := rules.LookupFinalizer(p.Example)
			if fi.Project == nil || fi.Project.Name != p.Name || !fi.WellKnown {
				t.Errorf("LookupFinalizer(%s) = %+v, want %s's", p.Example, fi, p.Name)
			}
		})
	}
	if _, ok := rules.ProjectOf("example.com/cleanup"); ok {
		t.Errorf("example.com/cleanup resolves to a project")
	}
	// The longest pattern wins: a provider beats its framework, a
	// project's subdomain beats the parent's.
	for f, want := range map[string]string{
		"openstackmachine.infrastructure.cluster.x-k8s.io": "Cluster API Provider OpenStack (CAPO)",
		"machine.cluster.x-k8s.io":                         "Cluster API",
		"finalizers.tf.contrib.fluxcd.io":                  "tofu-controller (Flux Terraform)",
		"fleet.cattle.io/bundle":                           "Rancher Fleet",
		"wrangler.cattle.io/cluster-scoped":                "Rancher",
		"karpenter.k8s.aws/termination":                    "Karpenter AWS provider",
		"ingress.k8s.aws/resources":                        "AWS Load Balancer Controller",
		"finalizers.s3.services.k8s.aws":                   "AWS Controllers for Kubernetes (ACK)",
	} {
		if got, _ := rules.ProjectOf(f); got.Name != want {
			t.Errorf("%s: %q, want %q", f, got.Name, want)
		}
	}
}

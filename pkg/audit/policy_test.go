package audit

import (
	"strconv"
	"strings"
	"testing"
)

func TestLintPolicy(t *testing.T) {
	const head = "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
	for _, c := range []struct {
		name, policy string
		want         []string // "rule problem message-prefix"
	}{
		{"clean", head + `rules:
- level: None
  resources: [{group: coordination.k8s.io, resources: [leases]}]
- level: RequestResponse
  verbs: [delete, deletecollection]
- level: Metadata
`, nil},
		{"deletes at None first", head + `rules:
- level: None
  users: ["system:serviceaccount:kube-system:generic-garbage-collector"]
- level: RequestResponse
`, []string{"1 deletes-not-logged rule 1 (level None) is the first to match some deletes, e.g. delete of deployments.apps in team-a by system:serviceaccount:kube-system:generic-garbage-collector (and "}},
		{"nothing matches deletes", head + `rules:
- level: Request
  verbs: [create]
`, []string{"0 deletes-not-logged no rule matches some deletes, e.g. delete of deployments.apps in team-a by system:serviceaccount:kube-system:generic-garbage-collector (and "}},
		{"deletes at Metadata", head + `rules:
- level: RequestResponse
  resources: [{group: "", resources: [pods]}]
- level: Metadata
`, []string{"2 deletes-at-metadata rule 2 logs deletes at Metadata level, e.g. delete of deployments.apps in team-a by "}},
		{"wrong group", head + `rules:
- level: RequestResponse
  resources: [{group: "", resources: ["deployments", "pods"]}]
- level: RequestResponse
`, []string{`1 wrong-group rule 1 lists "deployments" under group "" (the core group), so it never matches them: deployments are in group "apps"; write {group: "apps", resources: ["deployments"]}`}},
		{"response complete omitted", head + `omitStages: [RequestReceived, ResponseComplete]
rules:
- level: RequestResponse
  omitStages: [ResponseComplete]
`, []string{"0 response-complete-omitted the policy's omitStages lists ResponseComplete", "1 response-complete-omitted rule 1's omitStages lists ResponseComplete"}},
		{"resource names and namespaces, JSON", `{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[
 {"level":"None","namespaces":["kube-system"],"resources":[{"group":"","resources":["configmaps"],"resourceNames":["leader"]}]},
 {"level":"RequestResponse"}]}`, []string{`1 deletes-not-logged rule 1 (level None) is the first to match some deletes, e.g. delete of configmaps in kube-system by system:serviceaccount:kube-system:generic-garbage-collector (and `}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := LintPolicy([]byte(c.policy), "policy.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d findings, want %d: %+v", len(got), len(c.want), got)
			}
			for i, f := range got {
				if s := strings.Join([]string{strconv.Itoa(f.Rule), f.Problem, f.Message}, " "); !strings.HasPrefix(s, c.want[i]) {
					t.Errorf("finding %d:\n%s\nwant prefix\n%s", i, s, c.want[i])
				}
			}
		})
	}
	if _, err := LintPolicy([]byte("kind: Pod\napiVersion: v1\n"), "pod.yaml"); err == nil || !strings.HasPrefix(err.Error(), "pod.yaml is not an audit policy") {
		t.Errorf("a Pod: error %v", err)
	}
}

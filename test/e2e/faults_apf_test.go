package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// apfStormBound is how many times its fault-free request count a command
// may send under API Priority and Fairness throttling. Each list page is
// tried at most 5 times; client-go's own retries inside kgc's made it 55.
const apfStormBound = 3

// apfRun is what one command did through the proxy.
type apfRun struct {
	res       framework.KGCResult
	requests  int
	throttled int // answered 429 by the API server
}

// TestFaultNoRetryStormUnderAPF: kgc runs as a ServiceAccount (not in
// system:masters, which API Priority and Fairness exempts) allowed to
// read everything and delete. Fault-free, then with a FlowSchema putting
// it in a priority level of one seat and a queue of one, so that the API
// server itself answers 429 with Retry-After: kgc snapshot, kgc plan
// delete (live) and kgc apply each send at most apfStormBound times the
// requests they send fault-free, and either succeed with what the
// fault-free run saw or fail saying so, never an all-clear.
func TestFaultNoRetryStormUnderAPF(t *testing.T) {
	// A server with 30 seats in all: the limited level's share of them
	// rounds up to one seat.
	env := framework.Setup(t).Dedicated(t, framework.WithAPIServerArgs("--max-requests-inflight=20", "--max-mutating-requests-inflight=10"))
	ctx := context.Background()
	token := env.ServiceAccountToken(t, ctx, "default", "kgc-operator", []rbacv1.PolicyRule{
		{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch", "delete"}},
	})
	p := framework.NewFaultProxy(t, env.CP)
	kubeconfig := p.KubeconfigAs(t, token)
	free := newApplyCaseIn(t, env, "apf-free")
	throttled := newApplyCaseIn(t, env, "apf-throttled")

	base := runAPFCommands(t, env, p, kubeconfig, free)
	for name, r := range base {
		if r.res.ExitCode != 0 || r.throttled != 0 {
			t.Fatalf("fault-free %s: %d answers 429: %s", name, r.throttled, r.res)
		}
	}
	if got := free.exist(t); len(got) != 0 {
		t.Fatalf("fault-free apply left %v", got)
	}

	limitServiceAccount(t, ctx, env, "default", "kgc-operator")
	runs := runAPFCommands(t, env, p, kubeconfig, throttled)
	total := 0
	for _, name := range []string{"snapshot", "plan", "apply"} {
		r, b := runs[name], base[name]
		total += r.throttled
		t.Logf("%s: %d requests fault-free, %d throttled (%d answered 429), exit %d in %s",
			name, b.requests, r.requests, r.throttled, r.res.ExitCode, r.res.Duration.Round(100*time.Millisecond))
		if r.requests > apfStormBound*b.requests {
			t.Errorf("%s sent %d requests under throttling, more than %d× the %d it sends fault-free: a retry storm", name, r.requests, apfStormBound, b.requests)
		}
	}
	if total == 0 {
		t.Fatal("the API server answered no 429: the FlowSchema did not throttle kgc, the case proves nothing")
	}
	checkThrottledOutcomes(t, runs, throttled)
}

// runAPFCommands runs kgc snapshot, plan delete and apply on c as the
// kubeconfig's identity, counting the requests of each.
func runAPFCommands(t *testing.T, env *framework.Env, p *framework.FaultProxy, kubeconfig string, c *applyCase) map[string]apfRun {
	t.Helper()
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.json")
	out := map[string]apfRun{}
	run := func(name string, args ...string) apfRun {
		before, before429 := p.Count("", ""), p.Answered(429)
		res := env.RunKGCWith(t, kubeconfig, args...)
		r := apfRun{res: res, requests: p.Count("", "") - before, throttled: p.Answered(429) - before429}
		t.Logf("%s: %d requests, %d answered 429\n%s", name, r.requests, r.throttled, res)
		out[name] = r
		return r
	}
	run("snapshot", "snapshot", "--output-file", filepath.Join(dir, "snap.json"))
	if r := run("plan", "plan", "delete", "cm/owner", "-n", c.ns, "--cascade=background", "-o", "json"); r.res.ExitCode == 0 {
		if err := os.WriteFile(planFile, r.res.Stdout, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run("apply", "apply", planFile, "--yes", "--timeout", "90s", "-o", "json")
	return out
}

// checkThrottledOutcomes: each command succeeded with the case whole, or
// said what it could not do; the apply deleted as planned or nothing.
func checkThrottledOutcomes(t *testing.T, runs map[string]apfRun, c *applyCase) {
	t.Helper()
	for name, r := range runs {
		if r.res.ExitCode != 0 && !strings.Contains(string(r.res.Stderr), "error:") && !strings.Contains(string(r.res.Stdout), "could not be completed") {
			t.Errorf("%s failed (exit %d) without saying why:\n%s", name, r.res.ExitCode, r.res)
		}
	}
	if plan := runs["plan"].res; plan.ExitCode == 0 {
		var pl struct {
			Complete bool     `json:"complete"`
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal(plan.Stdout, &pl); err != nil {
			t.Fatalf("decoding the plan: %v\n%s", err, plan)
		}
		if !pl.Complete && len(pl.Warnings) == 0 {
			t.Errorf("an incomplete plan without a warning naming what was not read:\n%s", plan)
		}
		for _, n := range c.names {
			if pl.Complete && !strings.Contains(string(plan.Stdout), `"name": "`+n+`"`) {
				t.Errorf("the plan under throttling says complete but lacks %s:\n%s", n, plan.Stdout)
			}
		}
	}
	apply := runs["apply"].res
	var rep applyReport
	if err := json.Unmarshal(apply.Stdout, &rep); err != nil {
		t.Fatalf("the apply printed no report: %v\n%s", err, apply)
	}
	switch {
	case apply.ExitCode == 0 && rep.Outcome == "as-planned":
		if got := c.exist(t); len(got) != 0 {
			t.Errorf("apply as-planned under throttling, but %v still exist", got)
		}
	case apply.ExitCode != 0 && rep.Outcome == "refused":
		c.requireUntouched(t)
	default:
		t.Errorf("apply under throttling: exit %d, outcome %s; want as-planned with the objects gone, or refused with them untouched", apply.ExitCode, rep.Outcome)
	}
}

// limitServiceAccount puts the ServiceAccount ns/name in a priority level
// of its own with one seat, nothing lent or borrowed, and one queue of
// one request: what else arrives meanwhile is answered 429 by the API
// server. It returns once the API server's flow control has taken the
// FlowSchema in (its Dangling condition is False).
func limitServiceAccount(t *testing.T, ctx context.Context, env *framework.Env, ns, name string) {
	t.Helper()
	const level = "kgc-e2e-limited"
	plc := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: level},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: new(int32(1)),
				LendablePercent:          new(int32(0)),
				BorrowingLimitPercent:    new(int32(0)),
				LimitResponse: flowcontrolv1.LimitResponse{
					Type:    flowcontrolv1.LimitResponseTypeQueue,
					Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 1, HandSize: 1, QueueLengthLimit: 1},
				},
			},
		},
	}
	if _, err := env.Client.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, plc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PriorityLevelConfiguration %s: %v", level, err)
	}
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: level},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
			// Before the service-accounts FlowSchema (9000).
			MatchingPrecedence:  500,
			DistinguisherMethod: &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindServiceAccount,
					ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: ns, Name: name}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
					ClusterScope: true, Namespaces: []string{"*"}}},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
			}},
		},
	}
	if _, err := env.Client.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating FlowSchema %s: %v", level, err)
	}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := env.Client.FlowcontrolV1().FlowSchemas().Get(ctx, level, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == flowcontrolv1.FlowSchemaConditionDangling && c.Status == flowcontrolv1.ConditionFalse {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the API server did not take FlowSchema %s in: %v", level, err)
	}
}

package apply

import (
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"strings"
	"testing"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

func TestCheckDocument(t *testing.T) {
	good := mustPlan(t, shop(), plan.PolicyBackground)
	old := mustPlan(t, shop(), plan.PolicyBackground)
	old.Request, old.Basis, old.Digest = nil, nil, ""
	edited := mustPlan(t, shop(), plan.PolicyBackground)
	edited.Request.PropagationPolicy = plan.PolicyOrphan
	for name, tc := range map[string]struct {
		p    *plan.Plan
		want string
		msg  string
	}{
		"sealed":            {good, "none", ""},
		"older, no basis":   {old, report.ReasonNoBasis, "re-plan"},
		"edited after seal": {edited, report.ReasonNoBasis, "edited"},
	} {
		t.Run(name, func(t *testing.T) {
			err := CheckDocument(tc.p)
			if got := reason(err); got != tc.want {
				t.Fatalf("refusal %s, want %s", got, tc.want)
			}
			if err != nil {
				mustContain(t, "message", err.Error(), tc.msg)
			}
		})
	}
}

func TestCheckCluster(t *testing.T) {
	live := mustPlan(t, shop(), plan.PolicyBackground)
	files := shop()
	files.Source = snapshot.Source{Type: "files", Files: []string{"dump.yaml"}}
	fromFiles := mustPlan(t, files, plan.PolicyBackground)
	blind := shop()
	blind.Source.KubeSystemUID = ""
	noPrint := mustPlan(t, blind, plan.PolicyBackground)
	renamed := snapshot.Source{Type: "live", Server: "https://renamed:6443", Context: "other-name", KubeSystemUID: ksUID}
	for name, tc := range map[string]struct {
		p    *plan.Plan
		src  snapshot.Source
		want string
	}{
		"same cluster":                      {live, shop().Source, "none"},
		"same cluster, renamed context/url": {live, renamed, "none"},
		"another cluster":                   {live, snapshot.Source{Type: "live", Server: "https://b", KubeSystemUID: "ks-2"}, report.ReasonOtherCluster},
		"a plan from files":                 {fromFiles, shop().Source, report.ReasonOtherCluster},
		"a cluster hiding kube-system":      {live, snapshot.Source{Type: "live", Server: "https://b"}, report.ReasonOtherCluster},
		"a plan without fingerprint":        {noPrint, shop().Source, report.ReasonOtherCluster},
	} {
		t.Run(name, func(t *testing.T) {
			if got := reason(CheckCluster(tc.p, tc.src)); got != tc.want {
				t.Errorf("refusal %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCheckStale(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	owner := testobj.ConfigMap("shop", "owner").Build()
	newDep := testobj.Secret("shop", "c").ResourceVersion("20").OwnedBy(owner).Build()
	recreated := shop()
	recreated.Objects[0].Metadata.UID = "another-uid"
	for name, tc := range map[string]struct {
		fresh *snapshot.Snapshot
		want  string
		msg   []string
	}{
		"nothing changed":             {shop(), "none", nil},
		"an unrelated object changed": {withRV(shop(), "configmap-shop-other", "99"), "none", nil},
		"a dependent's version only":  {withRV(shop(), "secret-shop-a", "99"), "none", nil},
		"target relabelled":           {withRV(shop(), ownerUID, "14"), report.ReasonStale, []string{"ConfigMap/owner -n shop changed", "resourceVersion 10, now 14"}},
		"a new dependent":             {shop(newDep), report.ReasonStale, []string{"1 object(s)", "Secret/c -n shop: not in the plan, now deleted (newly deleted)"}},
		"target re-created":           {recreated, report.ReasonStale, []string{"no longer exists", "already applied"}},
	} {
		t.Run(name, func(t *testing.T) {
			fresh, err := Replan(saved, tc.fresh)
			if err != nil {
				t.Fatal(err)
			}
			err = CheckStale(saved, fresh)
			if got := reason(err); got != tc.want {
				t.Fatalf("refusal %s, want %s", got, tc.want)
			}
			if err != nil {
				mustContain(t, "refusal", err.Error(), tc.msg...)
			}
		})
	}
}

// fates builds a plan whose objects have the given fates; "a|b" gives
// fate a with alternative b.
func fates(m map[string]string) *plan.Plan {
	p := &plan.Plan{}
	for name, f := range m {
		parts := strings.Split(f, "|")
		of := plan.ObjectFate{Object: snapshot.ObjectRef{APIVersion: "v1", Kind: "Secret", Namespace: "ns", Name: name, UID: name}, Fate: parts[0]}
		for _, a := range parts[1:] {
			of.Alternatives = append(of.Alternatives, plan.Alternative{Fate: a})
		}
		p.Objects = append(p.Objects, of)
	}
	return p
}

func TestDiffPlans(t *testing.T) {
	for name, tc := range map[string]struct {
		saved, fresh map[string]string
		want         string
	}{
		"same":                           {map[string]string{"a": "deleted"}, map[string]string{"a": "deleted"}, ""},
		"updated and unchanged are kept": {map[string]string{"a": "updated"}, map[string]string{"a": "unchanged"}, ""},
		"newly deleted":                  {map[string]string{}, map[string]string{"a": "deleted"}, "Secret/a -n ns: not in the plan, now deleted (newly deleted)"},
		"no longer deleted":              {map[string]string{"a": "deleted"}, map[string]string{}, "Secret/a -n ns: planned deleted, now kept (no longer deleted)"},
		"orphaned instead":               {map[string]string{"a": "deleted"}, map[string]string{"a": "orphaned"}, "Secret/a -n ns: planned deleted, now orphaned (newly orphaned)"},
		"alternative became the fate":    {map[string]string{"a": "deleted|orphaned"}, map[string]string{"a": "orphaned|deleted"}, ""},
		"an alternative went away":       {map[string]string{"a": "deleted|orphaned"}, map[string]string{"a": "deleted"}, ""},
		"a new alternative":              {map[string]string{"a": "deleted"}, map[string]string{"a": "deleted|blocked"}, "Secret/a -n ns: planned deleted, now deleted|blocked (newly blocked)"},
		"recreated since":                {map[string]string{"a": "deleted"}, map[string]string{"a": "recreated"}, "Secret/a -n ns: planned deleted, now recreated (newly recreated)"},
		"recreated, still":               {map[string]string{"a": "recreated"}, map[string]string{"a": "recreated"}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, d := range DiffPlans(fates(tc.saved), fates(tc.fresh)) {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != tc.want {
				t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), tc.want)
			}
		})
	}
}

func TestCheckLimits(t *testing.T) {
	bg := mustPlan(t, shop(), plan.PolicyBackground) // deletes the owner and both Secrets
	held := shop()
	held.Objects[1].Metadata.Finalizers = []string{"example.com/hold"}
	blocked := mustPlan(t, held, plan.PolicyBackground)
	for name, tc := range map[string]struct {
		p    *plan.Plan
		l    Limits
		want string
	}{
		"no cap":                      {bg, Limits{MaxDeletions: -1}, "none"},
		"cap at the plan":             {bg, Limits{MaxDeletions: 3}, "none"},
		"cap below the plan":          {bg, Limits{MaxDeletions: 2}, report.ReasonMaxDeletions},
		"predicted to hang":           {blocked, Limits{MaxDeletions: -1}, report.ReasonBlocked},
		"hang allowed":                {blocked, Limits{MaxDeletions: -1, AllowBlocked: true}, "none"},
		"cap checked before hang":     {blocked, Limits{MaxDeletions: 0, AllowBlocked: true}, report.ReasonMaxDeletions},
		"cap and hang, both said":     {blocked, Limits{MaxDeletions: 0}, report.ReasonMaxDeletions + "+" + report.ReasonBlocked},
		"recreated counts as deleted": {fates(map[string]string{"a": "deleted", "b": "recreated"}), Limits{MaxDeletions: 1}, report.ReasonMaxDeletions},
		"recreated within the cap":    {fates(map[string]string{"a": "deleted", "b": "recreated"}), Limits{MaxDeletions: 2}, "none"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := reason(CheckLimits(tc.p, tc.l)); got != tc.want {
				t.Errorf("refusal %s, want %s", got, tc.want)
			}
		})
	}
}

func TestConsent(t *testing.T) {
	const digest = "sha256:abc"
	for name, tc := range map[string]struct {
		c       Consent
		prompt  bool
		refusal string
	}{
		"--yes":                         {Consent{Yes: true}, false, "none"},
		"--confirm with the digest":     {Consent{Digest: digest}, false, "none"},
		"--confirm with another digest": {Consent{Digest: "sha256:old", Yes: true}, false, report.ReasonNotConfirmed},
		"a terminal":                    {Consent{Prompts: true}, true, "none"},
		"no terminal, no --yes":         {Consent{}, false, report.ReasonNotConfirmed},
	} {
		t.Run(name, func(t *testing.T) {
			ask, err := tc.c.NeedsPrompt(digest, "")
			if ask != tc.prompt || reason(err) != tc.refusal {
				t.Errorf("prompt %v, refusal %s; want %v, %s", ask, reason(err), tc.prompt, tc.refusal)
			}
		})
	}
}

func TestConsentForACRD(t *testing.T) {
	const digest = "sha256:abc"
	crd := snapshot.ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com", UID: "crd-1"}
	widget := snapshot.ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "shop", Name: "gizmo", UID: "w-1"}
	p := &plan.Plan{Request: &plan.Request{Target: crd}, Objects: []plan.ObjectFate{
		{Object: crd, Fate: plan.FateDeleted}, {Object: widget, Fate: plan.FateDeleted}}}
	typed := typedOnly(p)
	mustContain(t, "reason", typed, "CustomResourceDefinition/widgets.example.com deletes every instance of it (1 in the plan)")
	if got := typedOnly(mustPlan(t, shop(), plan.PolicyBackground)); got != "" {
		t.Errorf("a ConfigMap's plan needs a typed confirmation: %q", got)
	}
	for name, tc := range map[string]struct {
		c       Consent
		prompt  bool
		refusal string
	}{
		"--yes alone":               {Consent{Yes: true}, false, report.ReasonNotConfirmed},
		"--yes on a terminal":       {Consent{Yes: true, Prompts: true}, true, "none"},
		"--confirm with the digest": {Consent{Digest: digest, Yes: true}, false, "none"},
	} {
		t.Run(name, func(t *testing.T) {
			ask, err := tc.c.NeedsPrompt(digest, typed)
			if ask != tc.prompt || reason(err) != tc.refusal {
				t.Errorf("prompt %v, refusal %s; want %v, %s", ask, reason(err), tc.prompt, tc.refusal)
			}
			if err != nil {
				mustContain(t, "refusal", err.Error(), "--yes is not enough", "--confirm with the plan digest")
				if strings.Contains(err.Error(), digest) {
					t.Errorf("the refusal repeats the digest the report's Plan digest line says: %s", err)
				}
			}
		})
	}
}

func TestCheckApplied(t *testing.T) {
	saved := mustPlan(t, shop(), plan.PolicyBackground)
	done := testobj.Snapshot(shop().Objects[3]).Live().Build()
	partly := testobj.Snapshot(shop().Objects[2:]...).Live().Build()
	// A target deleted and re-created under its name, the race
	// kcp-dev/kcp#628 describes (upstream deleted, re-created, a delayed
	// delete then hits the new object): the world moved, so stale, naming
	// the new object, not "applied".
	again := testobj.ConfigMap("shop", "owner").UID("owner-2").Build()
	recreated := testobj.Snapshot(again).Live().Build()
	for name, tc := range map[string]struct {
		now  *snapshot.Snapshot
		want string
	}{
		"nothing deleted yet":              {shop(), "none"},
		"target and its dependents gone":   {done, report.ReasonApplied},
		"target gone, a dependent is left": {partly, "none"},
		"target deleted and re-created":    {recreated, report.ReasonStale},
	} {
		t.Run(name, func(t *testing.T) {
			err := CheckApplied(saved, tc.now)
			if got := reason(err); got != tc.want {
				t.Fatalf("refusal %s, want %s", got, tc.want)
			}
			if tc.want == report.ReasonStale {
				mustContain(t, "refusal", err.Error(), "ConfigMap/owner -n shop was deleted and re-created", "now owner-2", "re-plan")
				return
			}
			if err != nil {
				mustContain(t, "refusal", err.Error(), "already applied", "ConfigMap/owner -n shop and the 2 object(s) it deletes are gone")
				if strings.Contains(err.Error(), saved.Digest) {
					t.Errorf("the refusal repeats the digest the report's Plan digest line says: %s", err)
				}
			}
		})
	}
}

func TestPrompt(t *testing.T) {
	p := mustPlan(t, shop(), plan.PolicyBackground)
	for name, tc := range map[string]struct {
		answer string
		want   string
	}{
		"the target's name": {"owner\n", "none"},
		"another name":      {"other\n", report.ReasonNotConfirmed},
		"y":                 {"y\n", report.ReasonNotConfirmed},
		"no answer":         {"", report.ReasonNotConfirmed},
	} {
		t.Run(name, func(t *testing.T) {
			var out strings.Builder
			err := Prompt(strings.NewReader(tc.answer), &out, p)
			if got := reason(err); got != tc.want {
				t.Errorf("refusal %s, want %s", got, tc.want)
			}
			mustContain(t, "prompt", out.String(), "kgc will delete ConfigMap/owner -n shop", "3 deleted", "Type the name of the ConfigMap (owner)")
			// The report says the digest; the prompt does not repeat it.
			if strings.Contains(out.String(), p.Digest) {
				t.Errorf("the prompt repeats the plan digest:\n%s", out.String())
			}
		})
	}
}

func TestCheckKept(t *testing.T) {
	kept := shop()
	kept.Objects[1].Facts = &snapshot.Facts{Keep: "helm.sh/resource-policy=keep"}
	p := mustPlan(t, kept, plan.PolicyBackground)
	for name, tc := range map[string]struct {
		allow []string
		want  string
	}{
		"not named":               {nil, report.ReasonKept},
		"another object named":    {[]string{"Secret/shop/b"}, report.ReasonKept},
		"named":                   {[]string{"Secret/shop/a"}, "none"},
		"named, kind in any case": {[]string{"secret/shop/a"}, "none"},
		"named without namespace": {[]string{"Secret/a"}, report.ReasonKept},
	} {
		t.Run(name, func(t *testing.T) {
			err := CheckLimits(p, Limits{MaxDeletions: -1, AllowKept: tc.allow})
			if got := reason(err); got != tc.want {
				t.Fatalf("refusal %s, want %s", got, tc.want)
			}
			if err != nil {
				mustContain(t, "refusal", err.Error(), "Secret/a -n shop (helm.sh/resource-policy=keep)", "--allow-kept Secret/shop/a")
			}
		})
	}
	if err := CheckLimits(mustPlan(t, kept, plan.PolicyOrphan), Limits{MaxDeletions: -1}); err != nil {
		t.Errorf("an orphan delete keeps the marked Secret, yet: %v", err)
	}
}

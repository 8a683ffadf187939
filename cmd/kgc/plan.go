package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/render"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// planOutputs are the formats of kgc plan delete, default first.
func planOutputs() enum[outputFormat] {
	return oneOf(outputText, outputTable, outputJSON, outputYAML, outputDOT, outputHTML)
}

// planOptions is `kgc plan delete`.
type planOptions struct {
	streams     *iostreams.IOStreams
	source      *sourceOptions
	policy      plan.Policy
	uid         string
	assume      plan.FinalizerAssumption
	controllers []string
	showSteps   bool
	output      outputFormat
	gates       []gate
	args        []string
	selector    string

	namespace string
}

type gate struct {
	kind string // blocked, orphans, deletes-more-than
	n    int
}

func newPlanCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Dry-run an operation through the API server and the garbage collector",
		Long: `Dry-run an operation the way the API server and the kube-controller-manager garbage
collector would carry it out, step by step, and say what it changes.`,
	}
	cmd.AddCommand(newPlanDeleteCmd(f))
	return cmd
}

func newPlanDeleteCmd(f *Factory) *cobra.Command {
	o := &planOptions{streams: f.IOStreams, source: newSourceOptions(f)}
	cmd := &cobra.Command{
		Use:   "delete (TYPE/NAME ... | TYPE NAME ... | --uid UID | [TYPE[,TYPE...]] -l SELECTOR)",
		Short: "What a delete would take with it: every object deleted, orphaned, updated or left blocked",
		Long: `Plan a delete: kgc settles the cluster's state as a freshly started controller manager would,
issues the DELETE with the given propagation policy, and runs the API server's delete semantics,
the garbage collector (graph builder, attemptToDelete, attemptToOrphan, foreground blocking,
dangling and virtual owners, the cycle breaker), the namespace controller, the CRD finalizer, the
kubelet and PodGC, the PVC/PV protection controllers and the Job tracking finalizer until nothing
is left to do. It prints the cascade in waves and the final state of every object the delete
changes, and every object that blocks it.

--cascade is kubectl's: background (the default), foreground or orphan; default sends no policy,
so the resource's own default applies (orphan for ReplicationControllers and batch/v1 Jobs).

A finalizer no simulated controller removes is assumed to hang (--assume-finalizers=hang): the
object stays Terminating and the plan names the finalizer and who should remove it. With
--assume-finalizers=remove its controller is assumed to finish.

The garbage collector runs 20 workers at once, and kgc runs them the same way, on a clock of API
round trips. Where one worker reads an object just as another changes it, the real outcome
depends on which call lands first: the plan then lists, under "Depends on which garbage collector
worker acts first", each object that could end otherwise, with its alternatives.

A delete that a controller undoes is said so: an object whose owner survives the delete and whose
controller creates it again (a Deployment's ReplicaSet, a ReplicaSet's, StatefulSet's, DaemonSet's
or Job's pods, a Service's EndpointSlices, kube-root-ca.crt and the default ServiceAccount of a
namespace) ends "recreated", with the controller and whether the name and the UID change.

-o dot draws the plan's objects for Graphviz in the style of kgc graph's drawing, each filled
by its fate, with a legend of the fates and marks drawn (kgc plan delete … -o dot | dot -Tsvg).

--fail-if blocked|orphans|recreated|deletes-more-than=N (repeatable) makes kgc exit 3 after
printing the plan when the condition holds, for CI gates; an alternative outcome counts as well,
and deletes-more-than counts recreated objects as deleted.

-o html writes the plan as one self-contained page for people: the volumes it destroys and the
objects controllers recreate first, the waves as columns coloured by fate, the owner graph drawn.`,
		Example: `  kgc plan delete deploy/web -n shop --cascade=foreground
  kgc plan delete ns/team-a -f cluster.json --show-steps
  kgc plan delete rc/frontend --cascade=default -o json
  kgc plan delete configmaps,secrets -l app=web -n shop
  kgc plan delete ns/shop -o html > plan.html
  kgc plan delete crd/widgets.example.com --fail-if deletes-more-than=100`,
		RunE: runE(o),
	}
	fs := cmd.Flags()
	o.addDeleteFlags(cmd)
	fs.BoolVar(&o.showSteps, "show-steps", false, "list every numbered step instead of the cascade by waves")
	enumVar(cmd, &o.output, "output", "o", string(outputText), planOutputs(), "output format")
	enumArrayVar(cmd, &o.gates, "fail-if", enum[gate]{choices: []string{"blocked", "orphans", "recreated", "deletes-more-than=N"}, parse: parseGate},
		"exit 3 after printing the plan when it holds (repeatable)")
	o.source.AddInputFlags(fs)
	cmd.ValidArgsFunction = objectArgs(f.ConfigFlags, o.source)
	return cmd
}

// addDeleteFlags adds the flags that say which delete to plan, shared
// with kgc apply delete.
func (o *planOptions) addDeleteFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	enumVar(cmd, &o.policy, "cascade", "", "background", enum[plan.Policy]{choices: plan.PolicyChoices(), parse: plan.ParsePolicy},
		`Must be "background", "orphan", or "foreground". Selects the deletion cascading strategy for the dependents (e.g. Pods created by a ReplicationController). Defaults to background. kgc adds "default": send no policy, so the resource's own default applies`)
	// kubectl's deprecation warning for the boolean values, which it
	// still accepts.
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		if f := cmd.Flags().Lookup("cascade"); f != nil && f.Changed {
			warnBooleanCascade(o.streams.ErrOut, f.Value.String())
		}
	}
	fs.StringVar(&o.uid, "uid", "", "the object to delete, by UID, instead of TYPE/NAME")
	fs.StringVarP(&o.selector, "selector", "l", "", "delete the objects with these labels in the namespace (kubectl's selector syntax: -l app=web,tier!=db), of the types given before it (TYPE or TYPE1,TYPE2) or of any: one plan for all of them")
	enumVar(cmd, &o.assume, "assume-finalizers", "", plan.AssumeHang,
		enum[plan.FinalizerAssumption]{choices: plan.FinalizerAssumptions(), parse: plan.ParseFinalizerAssumption},
		"finalizers no simulated controller removes: stay (hang) or are removed, as if their controller finished (remove)")
	fs.StringSliceVar(&o.controllers, "controllers", nil, "simulate only these controllers besides the garbage collector (default all): "+strings.Join(plan.AllControllers(), ","))
}

func (o *planOptions) Complete(_ *cobra.Command, args []string) error {
	o.args = args
	ns, _, err := o.source.Namespace()
	if err != nil {
		return err
	}
	o.namespace = ns
	return nil
}

// parseGate reads a --fail-if value.
func parseGate(s string) (gate, error) {
	switch {
	case s == "blocked" || s == "orphans" || s == "recreated":
		return gate{kind: s}, nil
	case strings.HasPrefix(s, "deletes-more-than="):
		n, err := strconv.Atoi(strings.TrimPrefix(s, "deletes-more-than="))
		if err != nil || n < 0 {
			return gate{}, errors.New("deletes-more-than=N needs a non-negative number N")
		}
		return gate{kind: "deletes-more-than", n: n}, nil
	}
	return gate{}, fmt.Errorf("unknown --fail-if %q: use blocked, orphans, recreated or deletes-more-than=N", s)
}

func (o *planOptions) Validate() error {
	for _, c := range o.controllers {
		if !slices.Contains(plan.AllControllers(), c) {
			return usageErrorf("unknown controller %q in --controllers: use some of %s", c, strings.Join(plan.AllControllers(), ","))
		}
	}
	if o.uid == "" && len(o.args) == 0 && o.selector == "" {
		return usageErrorf("which object? give TYPE/NAME (for example deploy/web), --uid or -l")
	}
	return checkSelection(o.args, o.uid != "", o.selector)
}

func (o *planOptions) Run(ctx context.Context) error {
	snap, p, err := o.makePlan(ctx)
	if err != nil {
		return err
	}
	if err := o.print(snap, p); err != nil {
		return err
	}
	// The digest is what `kgc apply --confirm` takes: on stderr, so that a
	// person reviewing the text plan sees it and the document stays clean.
	// A plan made from files cannot be applied, so it has none to show.
	switch {
	case p.Cluster != nil && p.Cluster.KubeSystemUID != "":
		fmt.Fprintf(o.streams.ErrOut, "plan digest: %s\n", p.Digest)
	case snap.Source.Type == "live":
		fmt.Fprintln(o.streams.ErrOut, "note: kgc apply will refuse this plan: these credentials cannot read the kube-system namespace, whose UID identifies the cluster")
	}
	return o.checkGates(p)
}

// makePlan loads the input, resolves the target and simulates the delete;
// kgc apply delete plans through it too.
func (o *planOptions) makePlan(ctx context.Context) (*snapshot.Snapshot, *plan.Plan, error) {
	snap, err := o.source.Load(ctx, askedNamespaces(o.namespace, false, o.args))
	if err != nil {
		return nil, nil, err
	}
	targets, assumed, err := o.targets(snap)
	if err != nil {
		return nil, nil, err
	}
	opts := plan.Options{Target: targets[0].Metadata.UID, Policy: o.policy, AssumeFinalizers: string(o.assume)}
	if len(o.controllers) > 0 {
		opts.Controllers = o.controllers
	}
	p, err := simulateDeletes(snap, targets, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("planning the delete of %s: %w", targets[0].Ref(), err)
	}
	if assumed != "" {
		p.Complete = false
		p.Warnings = append([]string{assumed}, p.Warnings...)
	}
	plan.Seal(p, snap)
	return snap, p, nil
}

// targets resolves what the plan deletes: the objects named (several as
// kubectl delete takes them), the one with --uid, or those -l selects.
func (o *planOptions) targets(snap *snapshot.Snapshot) (targets []*snapshot.Object, assumed string, err error) {
	switch {
	case o.uid != "":
		t, err := o.source.ResolveUID(snap, o.uid)
		return []*snapshot.Object{t}, "", err
	case o.selector != "":
		uids, err := selectObjects(snap, o.selector, o.args, o.namespace, false)
		if err != nil {
			return nil, "", err
		}
		if len(uids) == 0 {
			return nil, "", fmt.Errorf("no objects %s %s: nothing to plan", selectorScope(o.selector, o.args, o.namespace, false), where(snap))
		}
		for _, uid := range uids {
			t, err := o.source.ResolveUID(snap, uid)
			if err != nil {
				return nil, "", err
			}
			targets = append(targets, t)
		}
		return targets, "", nil
	}
	groups, err := splitObjectArgs(o.args)
	if err != nil {
		return nil, "", err
	}
	for _, g := range groups {
		if a := assumeNamespace(snap, g); a != "" && assumed == "" {
			assumed = a
		}
		t, err := o.source.Resolve(snap, g, o.namespace)
		if err != nil {
			return nil, "", err
		}
		if !slices.ContainsFunc(targets, func(x *snapshot.Object) bool { return x.Metadata.UID == t.Metadata.UID }) {
			targets = append(targets, t)
		}
	}
	return targets, assumed, nil
}

// simulateDeletes plans the delete of targets: one as ever, several as one
// plan, their DELETEs sent in order with the same policy, as kubectl
// delete deploy/a sts/b sends them.
func simulateDeletes(snap *snapshot.Snapshot, targets []*snapshot.Object, opts plan.Options) (*plan.Plan, error) {
	if len(targets) == 1 {
		return plan.Simulate(snap, opts)
	}
	actions := make([]plan.Action, len(targets))
	refs := make([]snapshot.ObjectRef, len(targets))
	for i, t := range targets {
		actions[i] = plan.Delete{UID: t.Metadata.UID, Policy: opts.Policy}
		refs[i] = t.Ref()
	}
	out, err := plan.SimulateActions(snap, actions, opts)
	if err != nil {
		return nil, err
	}
	out.Plan.Targets = refs
	return out.Plan, nil
}

func (o *planOptions) print(snap *snapshot.Snapshot, p *plan.Plan) error {
	switch o.output {
	case outputJSON, outputYAML:
		return render.Document(o.streams.Out, string(o.output), p)
	case outputTable:
		return render.PlanTable(o.streams.Out, p)
	case outputDOT:
		return render.PlanDOT(o.streams.Out, p, planOwners(snap, p))
	case outputHTML:
		return render.PlanHTML(o.streams.Out, p, planOwners(snap, p))
	case outputAuto, outputText, outputTree:
	}
	return render.PlanText(o.streams.Out, p, render.PlanOptions{ShowSteps: o.showSteps, Verbose: o.source.Verbosity >= 1}, outStyle(o.streams))
}

// planOwners gives the owner references of the plan's objects, for its
// drawings.
func planOwners(snap *snapshot.Snapshot, p *plan.Plan) func(uid string) []snapshot.OwnerReference {
	byUID := make(map[string]*snapshot.Object, len(p.Objects)+1)
	want := map[string]bool{p.Target.UID: true}
	for _, of := range p.Objects {
		want[of.Object.UID] = true
	}
	for i := range snap.Objects {
		if want[snap.Objects[i].Metadata.UID] {
			byUID[snap.Objects[i].Metadata.UID] = &snap.Objects[i]
		}
	}
	return func(uid string) []snapshot.OwnerReference {
		if obj := byUID[uid]; obj != nil {
			return obj.Metadata.OwnerReferences
		}
		return nil
	}
}

// checkGates returns a gate error for the first --fail-if that holds.
func (o *planOptions) checkGates(p *plan.Plan) error {
	var msgs []string
	// Where worker timing decides an object's fate, a gate counts the
	// worse outcome: "could be" is reason enough to stop a pipeline.
	s := p.WorstCase()
	for _, g := range o.gates {
		switch g.kind {
		case "blocked":
			if s.Blocked > 0 {
				msgs = append(msgs, words.Count(s.Blocked, "object")+" would be left blocked")
			}
		case "orphans":
			if s.Orphaned > 0 {
				msgs = append(msgs, words.Count(s.Orphaned, "object")+" would be orphaned")
			}
		case "recreated":
			if s.Recreated > 0 {
				msgs = append(msgs, words.Count(s.Recreated, "object")+" would be recreated by "+words.Agree(s.Recreated, "its controller", "their controllers"))
			}
		case "deletes-more-than":
			// A recreated object is deleted all the same.
			if n := s.Deleted + s.Recreated; n > g.n {
				msgs = append(msgs, fmt.Sprintf("%s would be deleted, more than %d", words.Count(n, "object"), g.n))
			}
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return gateError(errors.New("--fail-if: " + strings.Join(msgs, "; ")))
}

// warnBooleanCascade prints kubectl's warning for --cascade=true and
// --cascade=false (kubectl's cmd/delete/delete_flags.go).
func warnBooleanCascade(w io.Writer, v string) {
	switch strings.ToLower(v) {
	case "true":
		fmt.Fprintln(w, "warning: --cascade=true is deprecated (boolean value) and can be replaced with --cascade=background.")
	case "false":
		fmt.Fprintln(w, "warning: --cascade=false is deprecated (boolean value) and can be replaced with --cascade=orphan.")
	}
}

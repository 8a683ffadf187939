package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/render"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// whyStuckOutputs are the formats of kgc why-stuck; the default,
// outputAuto, is tree for one object and table for many; text is that
// default asked for by name.
func whyStuckOutputs() enum[outputFormat] {
	return oneOf(outputText, outputTree, outputTable, outputJSON, outputYAML, outputHTML)
}

// whyStuckOptions explains why objects are stuck in Terminating.
type whyStuckOptions struct {
	streams  *iostreams.IOStreams
	source   *sourceOptions
	output   outputFormat
	uid      string
	program  string // how the user runs kgc, for the footers
	simulate bool
	failIf   []string
	args     []string
	selector string

	namespace string
	explicit  bool
}

func newWhyStuckCmd(f *Factory) *cobra.Command {
	o := &whyStuckOptions{streams: f.IOStreams, source: newSourceOptions(f)}
	cmd := &cobra.Command{
		Use:   "why-stuck [TYPE/NAME ... | TYPE NAME ... | [TYPE[,TYPE...]] -l SELECTOR | --uid UID | -A]",
		Short: "Explain which finalizers hold a terminating object, who should remove them, and the way out",
		Long: `Explain why an object is stuck in Terminating. For each finalizer still on it (and, for a
namespace, each spec finalizer; for a pod, its kubelet) kgc names who removes it (the garbage
collector, the namespace controller, the kubelet, a built-in controller, or the third-party
controller named by the finalizer's domain), what that remover is waiting for, and, recursively,
why each of those objects is stuck in turn: blocking dependents of a foreground deletion,
dependents an orphaning cannot patch, a namespace's remaining content and failing API discovery,
pods on NotReady or missing nodes, claims still mounted, CRDs with instances left, controllers
that appear to be absent.

The leaves of that tree are the root causes. Each comes with remedies ordered from least to most
destructive, with the exact kubectl command: wait for or fix the controller, delete the blocking
dependent, unblock or remove its owner reference, and last remove the finalizer, with what that
skips. "finishes" says which terminating objects a remedy would let go, as the plan simulator
computes it (--simulate=false skips that).

For an object that is not terminating, kgc says whether the garbage collector will ever delete it.

Several objects (TYPE/NAME ... or TYPE NAME ..., as kubectl takes them) or -l/--selector (the
objects with these labels, in the namespace or with -A everywhere; TYPE -l SELECTOR or
TYPE1,TYPE2 -l SELECTOR of those types only) are explained together, grouped by root cause as
below.

Without TYPE/NAME, every terminating object of the namespace (-n, or the context's namespace), or
of the cluster with -A (the default offline), is listed grouped by root cause, oldest first.

Output formats: tree (one object) or table (many) by default; json and yaml give the Diagnosis
document (DiagnosisList for many); html writes one self-contained page for people (the blocker
tree, the root causes, each remedy's command ready to copy, with its risk).

--fail-if stuck makes kgc exit 3 after printing when a root cause is stuck (anything but a
deletion in progress), so a pipeline can stop on it.`,
		Example: `  kgc why-stuck ns/team-a
  kgc why-stuck deploy/web -n shop
  kgc why-stuck pod/db-0 pod/db-1 -n shop
  kgc why-stuck -l app=web -n shop
  kgc why-stuck pods,persistentvolumeclaims -l app=db -n shop
  kgc why-stuck -A
  kgc why-stuck -A --fail-if stuck -o json > stuck.json
  kgc why-stuck ns/team-a -f cluster.json.gz -o json`,
		RunE: runE(o),
	}
	enumVar(cmd, &o.output, "output", "o", string(outputAuto), whyStuckOutputs(), "output format, tree for one object and table for many by default")
	cmd.Flags().StringVar(&o.uid, "uid", "", "explain the object with this UID")
	cmd.Flags().StringVarP(&o.selector, "selector", "l", "", "explain the objects with these labels (kubectl's selector syntax: -l app=web,tier!=db), in the namespace or with -A everywhere")
	cmd.Flags().BoolVar(&o.simulate, "simulate", true, "simulate each remedy to say which terminating objects it finishes")
	enumArrayVar(cmd, &o.failIf, "fail-if", oneOf("stuck"), "exit 3 after printing when a root cause is stuck, not in progress")
	o.source.AddFlags(cmd.Flags())
	cmd.ValidArgsFunction = objectArgs(f.ConfigFlags, o.source)
	return cmd
}

func (o *whyStuckOptions) Complete(cmd *cobra.Command, args []string) error {
	o.args, o.program = args, programName(cmd)
	ns, explicit, err := o.source.Namespace()
	if err != nil {
		return err
	}
	o.namespace, o.explicit = ns, explicit
	return nil
}

func (o *whyStuckOptions) Validate() error {
	if err := checkSelection(o.args, o.uid != "", o.selector); err != nil {
		return err
	}
	// -A wins over -n, as in kubectl: the namespace is ignored; with -l
	// it says where to select.
	if o.source.AllNamespaces && o.selector == "" && (len(o.args) > 0 || o.uid != "") {
		return usageErrorf("-A lists every terminating object: drop it to explain one object")
	}
	return nil
}

// gate returns the --fail-if error when one of diags has a stuck root cause.
func (o *whyStuckOptions) gate(diags []diagnose.Diagnosis) error {
	if len(o.failIf) == 0 {
		return nil
	}
	stuck := map[string]bool{}
	for _, d := range diags {
		for _, rc := range d.RootCauses {
			if rc.Reason != diagnose.ReasonInProgress && rc.Reason != diagnose.ReasonNoFinalizers {
				stuck[rc.Object.String()+" "+rc.Finalizer] = true
			}
		}
	}
	if len(stuck) == 0 {
		return nil
	}
	return gateError(fmt.Errorf("--fail-if stuck: %s", words.Count(len(stuck), "stuck root cause")))
}

func (o *whyStuckOptions) Run(ctx context.Context) error {
	snap, err := o.source.Load(ctx, askedNamespaces(o.namespace, o.source.AllNamespaces, o.args))
	if err != nil {
		return err
	}
	var groups [][]string
	if o.selector == "" {
		if groups, err = splitObjectArgs(o.args); err != nil {
			return err
		}
	}
	one := len(groups) == 1 || o.uid != ""
	var sim *diagnose.Simulator
	opts := diagnose.Options{}
	// Simulating every remedy of every root cause of a whole cluster
	// costs a simulation each; the list shows root causes, not remedies.
	if o.simulate && one {
		sim = diagnose.NewSimulator(snap, plan.Options{MaxSteps: diagnose.RemedySimSteps})
		opts.Finishes = sim.Finishes
	}
	// The graph is replayed about what is diagnosed, not for the cluster.
	d := diagnose.New(snap, nil, opts)
	style := outStyle(o.streams)
	style.Program = o.program

	if len(groups) > 1 || o.selector != "" {
		return o.runSeveral(snap, d, groups, style)
	}
	if !one {
		scope := o.namespace
		if o.source.AllNamespaces {
			scope = ""
		}
		if err := checkNamespace(snap, scope, o.explicit); err != nil {
			return err
		}
		list := d.All(scope)
		if len(list.Items) == 0 && !o.output.isDocument() {
			_, err := fmt.Fprintln(o.streams.Out, o.noneTerminating(snap, scope))
			return err
		}
		if err := o.printList(list, style); err != nil {
			return err
		}
		return o.gate(list.Items)
	}

	uid := o.uid
	if uid == "" {
		obj, err := o.source.Resolve(snap, groups[0], o.namespace)
		if err != nil {
			return err
		}
		uid = obj.Metadata.UID
	} else if _, err := o.source.ResolveUID(snap, uid); err != nil {
		return err
	}
	diag, err := d.Diagnose(uid)
	if err != nil {
		return err
	}
	if sim != nil {
		for _, e := range sim.Errors {
			fmt.Fprintf(o.streams.ErrOut, "warning: %s\n", e)
		}
	}
	switch o.output {
	case outputAuto, outputText, outputTree:
		err = render.DiagnosisTree(o.streams.Out, diag, style)
	case outputTable:
		err = render.DiagnosisTable(o.streams.Out, singleList(diag, snap.CapturedAt), style)
	case outputHTML:
		err = render.WhyStuckHTML(o.streams.Out, []diagnose.Diagnosis{*diag}, style)
	default:
		err = render.Document(o.streams.Out, string(o.output), diag)
	}
	if err != nil {
		return err
	}
	return o.gate([]diagnose.Diagnosis{*diag})
}

// noneTerminating is the answer when no object of scope is terminating:
// where kgc looked, and how many are terminating elsewhere.
func (o *whyStuckOptions) noneTerminating(snap *snapshot.Snapshot, scope string) string {
	if scope == "" {
		return "No terminating objects " + where(snap) + "."
	}
	msg := "No terminating objects in namespace " + scope
	if more := elsewhere(snap, scope, (*snapshot.Object).Terminating, o.program+" why-stuck -A"); more != "" {
		msg += "; " + more
	}
	return msg + "."
}

// runSeveral explains the objects named (or selected by -l) together, as
// -A lists a namespace's.
func (o *whyStuckOptions) runSeveral(snap *snapshot.Snapshot, d *diagnose.Diagnoser, groups [][]string, style render.Style) error {
	var uids []string
	for _, g := range groups {
		obj, err := o.source.Resolve(snap, g, o.namespace)
		if err != nil {
			return err
		}
		uids = append(uids, obj.Metadata.UID)
	}
	if o.selector != "" {
		var err error
		if uids, err = selectObjects(snap, o.selector, o.args, o.namespace, o.source.AllNamespaces); err != nil {
			return err
		}
		if len(uids) == 0 {
			return fmt.Errorf("no objects %s %s: nothing to explain", selectorScope(o.selector, o.args, o.namespace, o.source.AllNamespaces), where(snap))
		}
	}
	list, err := d.List(uids...)
	if err != nil {
		return err
	}
	if err := o.printList(list, style); err != nil {
		return err
	}
	return o.gate(list.Items)
}

func (o *whyStuckOptions) printList(list *diagnose.DiagnosisList, style render.Style) error {
	switch o.output {
	case outputAuto, outputText, outputTable:
		return render.DiagnosisTable(o.streams.Out, list, style)
	case outputTree:
		if len(list.Items) == 0 {
			_, err := fmt.Fprintln(o.streams.Out, "No terminating objects.")
			return err
		}
		for i := range list.Items {
			if i > 0 {
				fmt.Fprintln(o.streams.Out)
			}
			if err := render.DiagnosisTree(o.streams.Out, &list.Items[i], style); err != nil {
				return err
			}
		}
		return nil
	case outputHTML:
		return render.WhyStuckHTML(o.streams.Out, list.Items, style)
	case outputDOT, outputJSON, outputYAML:
	}
	return render.Document(o.streams.Out, string(o.output), list)
}

// singleList is the -o table view of one diagnosis: its root causes, each
// holding the one object.
func singleList(diag *diagnose.Diagnosis, at time.Time) *diagnose.DiagnosisList {
	list := &diagnose.DiagnosisList{APIVersion: diag.APIVersion, Kind: diagnose.KindDiagnosisList, CapturedAt: at, Cluster: diag.Cluster,
		Groups: []diagnose.Group{}, Items: []diagnose.Diagnosis{*diag}}
	if diag.Since == nil {
		return list
	}
	held := diagnose.Held{Object: diag.Object, Since: *diag.Since, AgeSeconds: diag.AgeSeconds}
	for _, rc := range diag.RootCauses {
		list.Groups = append(list.Groups, diagnose.Group{RootCause: rc, Objects: []diagnose.Held{held}})
	}
	return list
}

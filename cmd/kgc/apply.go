package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/pkg/apply"
	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/render"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// applyOutputs are the formats of the apply report, default first.
func applyOutputs() enum[outputFormat] { return oneOf(outputText, outputJSON, outputYAML) }

// applyOptions is `kgc apply PLAN` and `kgc apply delete`.
type applyOptions struct {
	streams      *iostreams.IOStreams
	factory      *Factory
	args         []string
	yes          bool
	confirm      string
	maxDeletions int
	allowBlocked bool
	allowKept    []string
	remedy       string
	backupDir    string
	step         bool
	dryRun       string
	timeout      time.Duration
	output       outputFormat
	filenames    []string
	chunkSize    chunkSize
}

func newApplyCmd(f *Factory) *cobra.Command {
	o := &applyOptions{streams: f.IOStreams, factory: f}
	cmd := &cobra.Command{
		Use:   "apply (PLAN_FILE | WHY_FILE --remedy ID)",
		Short: "Carry out a reviewed plan live, refusing when the cluster moved, and check the cascade against it",
		Long: `Apply a plan written by kgc plan delete … -o json (or -o yaml; - reads stdin) to the live cluster,
exactly as reviewed. Before anything is sent, kgc checks, in this order:

  1. the plan was made against this cluster (the kube-system namespace's UID), not from files;
  2. the plan still holds: kgc reads again what the plan depends on (the target's namespace and
     the cluster-scoped objects it needs, or the whole cluster when the plan changes a
     cluster-scoped object) and plans again, and refuses the plan as stale, with the difference
     object by object, when the target changed or any object would now be deleted, orphaned or
     blocked otherwise than planned;
  3. --max-deletions N: the fresh plan deletes at most N objects, alternatives and objects a
     controller recreates included;
  4. the plan leaves nothing terminating, unless --allow-blocked, and deletes nothing marked to be
     kept (helm.sh/resource-policy=keep, Argo CD Delete=false or Prune=false, Flux prune=disabled)
     unless --allow-kept names it;
  5. confirmation: --yes, --confirm DIGEST (the digest kgc plan printed), or, on a terminal, the
     target's name typed; with no terminal and neither flag, kgc refuses. Deleting a
     CustomResourceDefinition (every instance goes with it) needs the typed name or --confirm:
     --yes is not enough.

With --step, kgc walks the plan bottom-up itself instead: each object the plan deletes gets its
own DELETE (preconditions uid and resourceVersion from the plan's basis), in the reverse of the
order the plan deletes them, and is followed until it is as planned before the next is sent; the
first that is not stops the apply. The target goes last, with the planned policy. A controller
recreates what it owns while it lives (a ReplicaSet's pods), so --step suits cascades no workload
controller reconciles.

With --backup DIR, every object the plan deletes is first read in full and written to DIR (a
failure stops the apply before anything is sent); a backup restores content, not identity.

Then kgc sends one DELETE with the planned propagationPolicy and the preconditions {uid,
resourceVersion} of the target as planned (a 409 Conflict means the target changed: stale, nothing
deleted), and follows the planned objects with watches until every one is in its planned final
state or --timeout passes, reporting each as planned, diverged or still in progress, and every
request sent. --dry-run=server sends the DELETE with dryRun=All instead and deletes nothing.

The report goes to stdout in every case, refusals included (-o json|yaml: an ApplyReport document).
A refusal is its outcome line, once: on a terminal no "error:" line repeats it; redirected, stderr says it.
Exit codes: 0 as planned (or a dry run the server accepts), 4 stale, 5 another cluster or a plan
from files, 6 over --max-deletions, predicted to hang or deleting what is marked to be kept, 7 not
confirmed, 8 diverged, 9 timed out, 10 already applied (nothing left to do), 11 interrupted.

Ctrl-C while the cascade is followed stops following: the report of what was seen so far is
printed (requests sent, objects done, objects still in progress with why-stuck's verdict) and kgc
exits 11; the cascade goes on in the cluster. A second Ctrl-C exits at once (130), without the
report. On a terminal the progress line names the object the current wave waits on and why.
A refusal deletes nothing.

With --remedy ID, the file is a kgc why-stuck -o json document made live, and kgc carries out that
one remedy (the ids are in its remedies[]; kgc can itself remove a finalizer from the stuck object
or force-delete its pod): it diagnoses the object again on the live cluster and refuses when the
remedy is no longer offered or its root cause changed (exit 4), asks as above (a remedy that may
leak something outside the cluster, such as a cloud load balancer, needs the typed name even with
--yes), sends the remedy's request guarded by JSON-patch test operations on the object's uid,
resourceVersion and whole finalizer list (or, for a force delete, preconditions), so that nothing
but the named finalizer is removed and a concurrent change makes it fail, and follows what the
remedy finishes until it is gone.

kgc apply works on a live cluster only.`,
		Example: `  kgc plan delete deploy/web -n shop --cascade=foreground -o json > plan.json
  kgc apply plan.json
  kgc apply plan.json --confirm sha256:5be1… --max-deletions 20 -o json
  kgc apply delete deploy/web -n shop --cascade=foreground --dry-run=server --yes
  kgc why-stuck widget/gizmo -n shop -o json > why.json
  kgc apply why.json --remedy remove-finalizer:widget:shop/gizmo:widgets.example.com/cleanup`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(o),
	}
	o.addFlags(cmd)
	cmd.Flags().StringVar(&o.remedy, "remedy", "", "apply this remedy (its id) of the kgc why-stuck -o json document given instead of a plan")
	_ = cmd.RegisterFlagCompletionFunc("remedy", remedyIDs) // only fails for an unknown flag name
	cmd.AddCommand(newApplyDeleteCmd(f, o))
	return cmd
}

func newApplyDeleteCmd(f *Factory, ao *applyOptions) *cobra.Command {
	o := &applyDeleteOptions{apply: ao, plan: &planOptions{streams: f.IOStreams, source: newSourceOptions(f), output: outputText}}
	cmd := &cobra.Command{
		Use:   "delete (TYPE/NAME | TYPE NAME | --uid UID)",
		Short: "Plan a delete and apply it in one go: the plan is printed, then confirmed",
		Long: `Plan the delete as kgc plan delete does, print the plan on stderr, then apply it as kgc apply does:
every check but the re-plan (the plan was just made), the confirmation, one guarded DELETE, and the
cascade followed against the plan.`,
		Example: `  kgc apply delete deploy/web -n shop --cascade=foreground
  kgc apply delete cm/settings -n shop --yes --timeout 1m -o json`,
		RunE: runE(o),
	}
	o.plan.addDeleteFlags(cmd)
	ao.addFlags(cmd)
	cmd.ValidArgsFunction = objectArgs(f.ConfigFlags, o.plan.source)
	return cmd
}

// applyDeleteOptions is `kgc apply delete`: a plan's options and
// apply's.
type applyDeleteOptions struct {
	apply *applyOptions
	plan  *planOptions
}

// Complete checks apply's flags first: a refused -f or --dry-run is
// said before the kubeconfig is read for the namespace.
func (o *applyDeleteOptions) Complete(cmd *cobra.Command, args []string) error {
	if err := o.apply.validateFlags(); err != nil {
		return err
	}
	return o.plan.Complete(cmd, args)
}

func (o *applyDeleteOptions) Validate() error { return o.plan.Validate() }

func (o *applyDeleteOptions) Run(ctx context.Context) error { return o.apply.runDelete(ctx, o.plan) }

func (o *applyOptions) addFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&o.yes, "yes", false, "do not ask for confirmation")
	fs.StringVar(&o.confirm, "confirm", "", "approve exactly the plan with this digest (printed by kgc plan), instead of --yes")
	fs.IntVar(&o.maxDeletions, "max-deletions", -1, "refuse when the plan deletes more than N objects, alternatives included (-1: no cap)")
	fs.BoolVar(&o.allowBlocked, "allow-blocked", false, "proceed even though the plan leaves objects terminating")
	fs.BoolVar(&o.step, "step", false, "delete the plan's objects one by one, bottom-up, each with its own preconditions, following each until it is as planned (--timeout each), and stop at the first that is not; the target last, with the planned policy")
	fs.StringVar(&o.backupDir, "backup", "", "before the DELETE, write every object the plan deletes to this directory, one YAML file each (as kubectl get -o yaml, without managedFields)")
	fs.StringSliceVar(&o.allowKept, "allow-kept", nil, "delete this object although it is marked to be kept (helm.sh/resource-policy=keep, Argo CD Delete=false/Prune=false, Flux prune=disabled): KIND/NAMESPACE/NAME, or KIND/NAME if cluster-scoped; repeatable")
	fs.StringVar(&o.dryRun, "dry-run", "none", `"server": send the DELETE with dryRun=All and report what the API server said, deleting nothing`)
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long to follow the cascade; 0 sends the DELETE and returns")
	enumVar(cmd, &o.output, "output", "o", string(outputText), applyOutputs(), "report format")
	addChunkSizeFlag(fs, &o.chunkSize)
	// -f is accepted only to refuse it clearly: apply changes a cluster,
	// and a dump is not one.
	fs.StringSliceVarP(&o.filenames, "filename", "f", nil, "not supported: kgc apply works on a live cluster only")
	_ = fs.MarkHidden("filename") // only fails for an unknown flag name
}

func (o *applyOptions) Complete(_ *cobra.Command, args []string) error {
	o.args = args
	return nil
}

// Validate checks the flags, then that a plan is given.
func (o *applyOptions) Validate() error {
	if err := o.validateFlags(); err != nil {
		return err
	}
	if len(o.args) == 0 {
		return usageErrorf("which plan? give a file written by kgc plan delete … -o json (- for stdin), or use kgc apply delete TYPE/NAME")
	}
	return nil
}

func (o *applyOptions) Run(ctx context.Context) error {
	if o.remedy != "" {
		return o.runRemedy(ctx, o.args[0])
	}
	return o.runSaved(ctx, o.args[0])
}

// validateFlags checks the flags kgc apply and kgc apply delete share.
func (o *applyOptions) validateFlags() error {
	switch {
	case len(o.filenames) > 0:
		return usageErrorf("kgc apply works on a live cluster only, not on files (-f): plan with kgc plan delete on the live cluster, then apply that plan")
	case o.dryRun != "none" && o.dryRun != "server":
		return usageErrorf("--dry-run=%s: use --dry-run=server (the API server checks the DELETE), or kgc plan for a client-side dry run", o.dryRun)
	case o.timeout < 0:
		return usageErrorf("--timeout must not be negative")
	case o.maxDeletions < -1:
		return usageErrorf("--max-deletions must be a number of objects, or -1 for no cap")
	}
	return nil
}

// runSaved applies a plan file.
func (o *applyOptions) runSaved(ctx context.Context, path string) error {
	p, err := readPlan(path, o.streams.In)
	if err != nil {
		return err
	}
	// A plan that no cluster can make right is refused before connecting.
	if err := apply.Precheck(p); err != nil {
		return o.finish(apply.RefusedReport(p, err), err)
	}
	a, stop, err := o.applier()
	if err != nil {
		return err
	}
	defer stop()
	rep, err := a.Apply(ctx, p)
	return o.finish(rep, err)
}

// runRemedy applies one remedy of a why-stuck document.
func (o *applyOptions) runRemedy(ctx context.Context, path string) error {
	diag, err := readDiagnosis(path, o.streams.In, o.remedy)
	if err != nil {
		return err
	}
	if err := apply.PrecheckRemedy(diag, o.remedy); err != nil {
		return o.finish(apply.RefusedRemedyReport(diag, o.remedy, err), err)
	}
	a, stop, err := o.applier()
	if err != nil {
		return err
	}
	defer stop()
	rep, err := a.ApplyRemedy(ctx, diag, o.remedy)
	return o.finish(rep, err)
}

// runDelete plans the delete live, shows the plan, and applies it.
func (o *applyOptions) runDelete(ctx context.Context, po *planOptions) error {
	po.source.ChunkSize = o.chunkSize
	snap, p, err := po.makePlan(ctx)
	if err != nil {
		return err
	}
	// The plan goes to stderr: it is there to be reviewed, and stdout
	// carries the report.
	if err := render.PlanText(o.streams.ErrOut, p, render.PlanOptions{}, errStyle(o.streams)); err != nil {
		return err
	}
	planDigestLine(o.streams.ErrOut, p.Digest, o.reportOnTerminal())
	a, stop, err := o.applier()
	if err != nil {
		return err
	}
	defer stop()
	rep, err := a.ApplyFresh(ctx, p, snap)
	return o.finish(rep, err)
}

// applier connects to the cluster (the factory's) and relays interrupts
// to the apply until stop is called.
func (o *applyOptions) applier() (a *apply.Applier, stop func(), err error) {
	errOut := &lockedWriter{w: o.streams.ErrOut}
	var progress io.Writer
	if o.streams.IsStderrTTY() {
		progress = errOut
	}
	src := &sourceOptions{configFlags: o.factory.ConfigFlags, streams: o.streams, ChunkSize: o.chunkSize}
	captureOpts := src.captureOptions("", nil)
	captureOpts.Progress = progress
	cluster, err := o.factory.Cluster(captureOpts)
	if err != nil {
		return nil, nil, err
	}
	opts := apply.Options{
		Limits:  apply.Limits{MaxDeletions: o.maxDeletions, AllowBlocked: o.allowBlocked, AllowKept: o.allowKept},
		Consent: apply.Consent{Yes: o.yes, Digest: o.confirm, Prompts: o.streams.CanPrompt()},
		In:      o.streams.In, Out: errOut, Progress: progress,
		DryRun: o.dryRun == "server", Timeout: o.timeout, BackupDir: o.backupDir, Step: o.step,
	}
	opts.Interrupt, opts.Following, stop = interrupts(o.factory.Signals, o.factory.Exit, errOut)
	return &apply.Applier{Cluster: cluster, Options: opts}, stop, nil
}

// finish prints the report, whatever happened, and turns the outcome into
// the command's error and exit code.
func (o *applyOptions) finish(rep *report.Report, err error) error {
	if rep != nil {
		var perr error
		if o.output.isDocument() {
			perr = render.Document(o.streams.Out, string(o.output), rep)
		} else {
			perr = render.ApplyText(o.streams.Out, rep)
		}
		if perr != nil {
			return perr
		}
	}
	return saidInReport(applyError(rep, err), rep, o.reportOnTerminal())
}

// reportOnTerminal says whether the text report and stderr share one
// terminal: then what the report says is not said again on stderr.
func (o *applyOptions) reportOnTerminal() bool {
	return !o.output.isDocument() && o.streams.IsStdoutTTY() && o.streams.IsStderrTTY()
}

// planDigestLine ends the plan shown on stderr with its digest, unless the
// report, on the same terminal, says it: one digest line on a screen, and
// a script reading stderr (stdout redirected) still finds it there.
func planDigestLine(w io.Writer, digest string, saidInReport bool) {
	if saidInReport {
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintf(w, "plan digest: %s\n\n", digest)
}

// readDocument reads a JSON or YAML document from a file or stdin (-), as
// JSON.
func readDocument(path string, stdin io.Reader) ([]byte, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JSON or YAML document: %w", path, err)
	}
	return js, nil
}

// readPlan reads a Plan document, JSON or YAML, from a file or stdin.
func readPlan(path string, stdin io.Reader) (*plan.Plan, error) {
	js, err := readDocument(path, stdin)
	if err != nil {
		return nil, err
	}
	var p plan.Plan
	dec := json.NewDecoder(bytes.NewReader(js))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s is not a plan document: %w; write one with kgc plan delete … -o json", path, err)
	}
	if p.Kind != "Plan" || p.APIVersion != snapshot.APIVersion {
		return nil, fmt.Errorf("%s is a %q document of %q, not a %s Plan: write one with kgc plan delete … -o json", path, p.Kind, p.APIVersion, snapshot.APIVersion)
	}
	return &p, nil
}

// readDiagnosis reads a why-stuck document, a Diagnosis or a
// DiagnosisList, and returns the diagnosis that offers remedy id (the
// first, for a list; any other carries the same remedy only for the same
// root cause).
func readDiagnosis(path string, stdin io.Reader, id string) (*diagnose.Diagnosis, error) {
	js, err := readDocument(path, stdin)
	if err != nil {
		return nil, err
	}
	var head struct{ APIVersion, Kind string }
	if err := json.Unmarshal(js, &head); err != nil || head.APIVersion != snapshot.APIVersion {
		return nil, fmt.Errorf("%s is not a %s why-stuck document: write one with kgc why-stuck … -o json", path, snapshot.APIVersion)
	}
	var items []diagnose.Diagnosis
	switch head.Kind {
	case diagnose.KindDiagnosis:
		var d diagnose.Diagnosis
		err = json.Unmarshal(js, &d)
		items = []diagnose.Diagnosis{d}
	case diagnose.KindDiagnosisList:
		var l diagnose.DiagnosisList
		err = json.Unmarshal(js, &l)
		items = l.Items
	default:
		return nil, fmt.Errorf("%s is a %q document, not a why-stuck one: --remedy takes the output of kgc why-stuck … -o json", path, head.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a why-stuck document: %w", path, err)
	}
	for i := range items {
		if _, _, ok := items[i].FindRemedy(id); ok {
			return &items[i], nil
		}
	}
	return nil, fmt.Errorf("%s offers no remedy %q that kgc can apply: pick an id from its remedies[]", path, id)
}

// remedyIDs completes --remedy with the ids of the remedies kgc can carry
// out that the why-stuck document given as argument offers, each with its
// description; nothing when no readable document is given yet.
func remedyIDs(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	none := cobra.ShellCompDirectiveNoFileComp
	if len(args) != 1 || args[0] == "-" {
		return nil, none
	}
	js, err := readDocument(args[0], nil)
	if err != nil {
		return nil, none
	}
	var doc struct {
		Remedies []diagnose.Remedy    `json:"remedies"`
		Items    []diagnose.Diagnosis `json:"items"`
	}
	if json.Unmarshal(js, &doc) != nil {
		return nil, none
	}
	rems := doc.Remedies
	for _, d := range doc.Items {
		rems = append(rems, d.Remedies...)
	}
	var out []string
	for _, r := range rems {
		if r.ID != "" && !slices.ContainsFunc(out, func(c string) bool { return strings.HasPrefix(c, r.ID+"\t") }) {
			out = append(out, r.ID+"\t"+r.Description)
		}
	}
	slices.Sort(out)
	return out, none
}

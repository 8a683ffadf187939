package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/postmortem"
	"github.com/kgc-dev/kgc/pkg/render"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

func postmortemOutputs() enum[outputFormat] {
	return oneOf(outputText, outputJSON, outputYAML, outputDOT, outputHTML)
}

// afterNone is the --after value that asks for no after state.
const afterNone = "none"

// postmortemOptions rebuilds deletions from the API server's audit log.
type postmortemOptions struct {
	streams   *iostreams.IOStreams
	source    *sourceOptions
	output    outputFormat
	auditLogs []string
	before    []string
	after     []string
	since     string
	until     string
	args      []string
	// auditPolicy is the API server's audit policy file to lint.
	auditPolicy string
	failIf      []string
	// applyReports are kgc apply reports to join by audit ID.
	applyReports []string

	namespace string
	window    audit.Options
	// spillAfter is how many requests are held before the log is written
	// to temporary files and analyzed a part at a time.
	spillAfter int
	// tune is the Factory's TuneMemory: nil in tests.
	tune func(memoryPhase)
}

// tuneMemory tunes the process's garbage collector for a phase, when
// the process asked for it.
func (o *postmortemOptions) tuneMemory(p memoryPhase) {
	if o.tune != nil {
		o.tune(p)
	}
}

func newPostmortemCmd(f *Factory) *cobra.Command {
	o := &postmortemOptions{streams: f.IOStreams, source: newSourceOptions(f), tune: f.TuneMemory}
	cmd := &cobra.Command{
		Use:   "postmortem [TYPE/NAME | -n NS | -A] --audit-log PATH...",
		Short: "Name who deleted what, the chain of controllers that carried it out, and what a plan would have said",
		Long: `Rebuild, from the API server's audit log, every deletion in a window: for each object that
went, the request that started it (who, when, with which client and propagation policy), the
chain of controllers that carried it out (the garbage collector, the namespace controller,
kubelets, the API server's CRD cleanup), and for every link how it is known: from the audit log
itself, from the before snapshot, from kgc's model, or from timing alone (a guess, made only without a before snapshot).

The garbage collector's DELETE names only the dependent, the namespace controller sweeps a
namespace with a deletecollection per type, and custom resources go with their CRD with no
request at all: kgc ties them to the request that started them, and lists what it cannot tie.

--audit-log takes kube-apiserver logs written with --audit-log-format=json, their rotated and
gzipped siblings, folders of them, an EventList, or - for stdin; several files (several API
servers) are merged. It also reads each managed platform's export of the log, told apart by its
content (--audit-format forces one): EKS CloudWatch Logs (filter-log-events, get-log-events,
Logs Insights, subscription payloads, S3 exports), GKE Cloud Logging entries (gcloud logging
read, JSON or YAML; sinks), AKS diagnostic logs (storage PT1H.json, Event Hubs, Log Analytics
AKSAudit) and OpenShift's oc adm node-logs; YAML and audit.k8s.io v1beta1 and v1alpha1 too.
window.files says what each file was read as and what its form loses. Only metadata is kept:
no body of any request reaches the output.

With --before (a snapshot or dump taken before), each root request is planned as kgc plan delete
would have planned it, and the plan is compared with what happened. --after is the state at the
end (a snapshot or dump); without it kgc reads the live cluster when a kubeconfig is set
(--after none skips it). --audit-policy lints the policy for what it hides from a post-mortem.
--apply-report joins kgc apply reports by audit ID: a root request kgc apply sent says so, with
the digest of the plan it applied.

Output formats: text (default), json and yaml (the PostMortem document), dot (the causal graph),
html (one self-contained page for people: a timeline of the requests with one lane per actor, each
chain as a tree with how each link is known, the plan against reality; no network needed).`,
		Example: `  kgc postmortem -A --audit-log /var/log/kubernetes/audit/
  kgc postmortem ns/team-a --audit-log audit.log --before before.json.gz --after after.json.gz
  kgc postmortem -n shop --audit-log audit.log.gz --audit-log audit-2.log.gz -o json
  kgc postmortem -A --audit-log audit.log --after none -o dot | dot -Tsvg > cascade.svg
  kgc postmortem ns/team-a --audit-log audit.log --before before.json.gz -o html > incident.html`,
		RunE: runE(o),
	}
	fs := cmd.Flags()
	enumVar(cmd, &o.output, "output", "o", string(outputText), postmortemOutputs(), "output format")
	fs.StringSliceVar(&o.auditLogs, "audit-log", nil, "kube-apiserver audit log files (JSON lines, .gz too), folders of them, an EventList, or - for stdin; repeatable")
	enumVar(cmd, &o.window.Format, "audit-format", "", string(audit.FamilyAuto), oneOf(audit.Families()...),
		"what the --audit-log files are: auto tells each file's form from its content (native, EKS CloudWatch, GKE Cloud Logging, AKS diagnostics or Log Analytics, OpenShift node-logs); another value reads every file as that platform's export")
	fs.StringSliceVar(&o.before, "before", nil, "a snapshot or dump taken before the deletions: plans each root request on it")
	fs.StringSliceVar(&o.after, "after", nil, "a snapshot or dump taken after; default: the live cluster when a kubeconfig is set; none: no after state")
	fs.StringVar(&o.since, "since", "", "only events at or after this time (RFC 3339, or a duration before now such as 2h)")
	fs.StringVar(&o.until, "until", "", "only events at or before this time (RFC 3339, or a duration before now)")
	fs.StringVar(&o.auditPolicy, "audit-policy", "", "the API server's audit policy file: say what it hides from a post-mortem")
	fs.StringSliceVar(&o.applyReports, "apply-report", nil, "kgc apply reports (-o json): name the root requests kgc apply sent, by audit ID; repeatable")
	enumArrayVar(cmd, &o.failIf, "fail-if", oneOf("incomplete"), "exit 3 after printing when the evidence has holes (gaps in the log, roots not in it, objects no chain explains)")
	fs.BoolVarP(&o.source.AllNamespaces, "all-namespaces", "A", false, "every deletion in the window, in every namespace")
	fs.IntVar(&o.spillAfter, "spill-after", spillAfter, "requests held in memory before the log is written to temporary files and analyzed a namespace at a time (same result, bounded memory); 0: never")
	addChunkSizeFlag(fs, &o.source.ChunkSize)
	cmd.ValidArgsFunction = objectArgs(f.ConfigFlags, o.source)
	return cmd
}

func (o *postmortemOptions) Complete(_ *cobra.Command, args []string) error {
	o.args = args
	ns, _, err := o.source.Namespace()
	if err != nil {
		return err
	}
	o.namespace = ns
	now := time.Now()
	if o.window.Since, err = parseWhen("--since", o.since, now); err != nil {
		return err
	}
	o.window.Until, err = parseWhen("--until", o.until, now)
	return err
}

// parseWhen reads an RFC 3339 time or a duration before now.
func parseWhen(flag, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, usageErrorf("%s %q: give a time like 2026-11-20T10:00:00Z or a duration like 2h", flag, v)
}

func (o *postmortemOptions) Validate() error {
	if len(o.auditLogs) == 0 {
		return usageErrorf("--audit-log is required: give the API server's audit log files or folders (- for stdin)")
	}
	if len(o.args) > 2 {
		return usageErrorf("expected one object, TYPE/NAME or TYPE NAME, got %q", strings.Join(o.args, " "))
	}
	if o.source.AllNamespaces && len(o.args) > 0 {
		return usageErrorf("-A lists every deletion: drop it to follow one object")
	}
	if o.spillAfter < 0 {
		return usageErrorf("--spill-after %d: give a number of requests, or 0 never to spill", o.spillAfter)
	}
	return nil
}

func (o *postmortemOptions) Run(ctx context.Context) error {
	o.tuneMemory(phaseReading)
	// The writes no chain reads are folded away, unless an apply report
	// is to be joined: it may name any request by its audit ID.
	opts := o.window
	opts.Fold = len(o.applyReports) == 0
	if opts.Fold {
		// A log too big to hold is analyzed a part at a time.
		opts.Spill = o.spillAfter
	}
	log, err := postmortem.ReadLog(o.auditLogs, o.streams.In, opts)
	if err != nil {
		return err
	}
	if !log.Spilled() {
		o.printAuditWarnings(log)
	}
	o.tuneMemory(phaseAnalyzing)
	in := postmortem.Input{Log: log}
	if err := o.loadStates(ctx, &in); err != nil {
		return err
	}
	if in.Scope, err = o.scope(in.Before, in.After); err != nil {
		return err
	}
	if in.PolicyFindings, err = o.lintPolicy(); err != nil {
		return err
	}
	if in.ApplyReports, err = readApplyReports(o.applyReports); err != nil {
		return err
	}
	a, err := postmortem.Prepare(in)
	if log.Spilled() {
		// What reading a spilled log found is known once its parts are.
		o.printAuditWarnings(log)
	}
	if err != nil {
		return err
	}
	pm, err := o.print(a)
	if err != nil {
		return err
	}
	if len(o.failIf) > 0 && !pm.Complete {
		return gateError(fmt.Errorf("--fail-if incomplete: the evidence has holes; see the notes, gaps and unexplained objects"))
	}
	return nil
}

// print writes the analysis and returns its document, whole but for its
// roots when they were written as they were built.
func (o *postmortemOptions) print(a *postmortem.Analysis) (*postmortem.PostMortem, error) {
	switch o.output {
	case outputJSON:
		return a.Document(), render.PostMortemJSON(o.streams.Out, a)
	case outputYAML:
		pm := a.Whole()
		return pm, render.Document(o.streams.Out, string(o.output), pm)
	case outputDOT:
		pm := a.Whole()
		return pm, render.PostMortemDOT(o.streams.Out, pm)
	case outputHTML:
		pm := a.Whole()
		return pm, render.PostMortemHTML(o.streams.Out, pm)
	case outputAuto, outputText, outputTree, outputTable:
	}
	return a.Document(), render.PostMortemTextStream(o.streams.Out, a, outStyle(o.streams))
}

// spillAfter is how many requests a post-mortem holds before it writes
// the log to temporary files, to analyze it a part at a time: what about
// 2.6 million events of a busy cluster keep, or a million of one whose
// writes are logged with their bodies, under 900 MB held at the end of
// reading. A smaller log is analyzed whole, faster.
const spillAfter = 1 << 19

// lintPolicy reads --audit-policy, if given, for what it hides.
func (o *postmortemOptions) lintPolicy() ([]audit.PolicyFinding, error) {
	if o.auditPolicy == "" {
		return nil, nil
	}
	data, err := os.ReadFile(o.auditPolicy)
	if err != nil {
		return nil, fmt.Errorf("reading the audit policy: %w", err)
	}
	return audit.LintPolicy(data, o.auditPolicy)
}

// readApplyReports reads the --apply-report files.
func readApplyReports(paths []string) ([]postmortem.ApplyReport, error) {
	var out []postmortem.ApplyReport
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading the apply report: %w", err)
		}
		rep, err := postmortem.ReadApplyReport(data, p)
		if err != nil {
			return nil, err
		}
		out = append(out, rep)
	}
	return out, nil
}

// printAuditWarnings reports what could not be read, on stderr.
func (o *postmortemOptions) printAuditWarnings(log *audit.Log) {
	for _, w := range log.Warnings {
		if w.Position.Line == 0 { // the message names its file
			fmt.Fprintf(o.streams.ErrOut, "warning: %s\n", w.Message)
			continue
		}
		fmt.Fprintf(o.streams.ErrOut, "warning: %s:%d: %s\n", w.Position.File, w.Position.Line, w.Message)
	}
}

// loadStates reads the before and after states: files, or the live
// cluster for after when a kubeconfig is set.
func (o *postmortemOptions) loadStates(ctx context.Context, in *postmortem.Input) error {
	var err error
	if len(o.before) > 0 {
		if in.Before, err = o.readState("--before", o.before); err != nil {
			return err
		}
		in.BeforeName, in.Predict = strings.Join(o.before, ","), true
	}
	switch {
	case len(o.after) == 1 && o.after[0] == afterNone:
	case len(o.after) > 0:
		if in.After, err = o.readState("--after", o.after); err != nil {
			return err
		}
		in.AfterName = strings.Join(o.after, ",")
	default:
		in.After, err = o.source.capture(ctx, "", nil)
		if err != nil {
			fmt.Fprintf(o.streams.ErrOut, "warning: no after state, so what still exists is not known: %v; pass --after FILE, or --after none\n", err)
			in.After = nil
			break
		}
		in.AfterName = "live"
	}
	if in.After != nil {
		d := diagnose.New(in.After, nil, diagnose.Options{})
		in.WhyStuck = func(uid string) string { return whyStuckLine(d, uid) }
	}
	return nil
}

func (o *postmortemOptions) readState(flag string, paths []string) (*snapshot.Snapshot, error) {
	snap, err := snapshotio.ReadFiles(paths, o.streams.In, snapshotio.ReadOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	for _, w := range snap.Warnings {
		fmt.Fprintf(o.streams.ErrOut, "warning: %s: %s\n", flag, w.String())
	}
	return snap, nil
}

// whyStuckLine is why-stuck's first root cause of an object, in a line.
func whyStuckLine(d *diagnose.Diagnoser, uid string) string {
	diag, err := d.Diagnose(uid)
	if err != nil || len(diag.RootCauses) == 0 {
		return "unknown: why-stuck finds no root cause"
	}
	return render.RootCauseLine(diag.RootCauses[0])
}

// scope turns the arguments into the chains to report. The object asked
// about may be gone: its type is resolved from the snapshots' catalogs
// and the built-in table, not looked up as a live object.
func (o *postmortemOptions) scope(before, after *snapshot.Snapshot) (postmortem.Scope, error) {
	if len(o.args) == 0 {
		if o.source.AllNamespaces {
			return postmortem.Scope{}, nil
		}
		return postmortem.Scope{Namespace: o.namespace}, nil
	}
	typ, name, ok := strings.Cut(o.args[0], "/")
	if len(o.args) == 2 {
		typ, name, ok = o.args[0], o.args[1], !strings.Contains(o.args[0], "/")
	}
	if !ok || typ == "" || name == "" {
		return postmortem.Scope{}, usageErrorf("expected TYPE/NAME or TYPE NAME, got %q", strings.Join(o.args, " "))
	}
	var resources []snapshot.Resource
	for _, s := range []*snapshot.Snapshot{before, after} {
		if s != nil {
			resources = append(resources, s.Resources...)
		}
	}
	res, err := snapshot.NewCatalog(append(resources, snapshot.BuiltinResources()...)).Resolve(typ)
	if err != nil {
		return postmortem.Scope{}, err
	}
	ref := snapshot.ObjectRef{Kind: res.Kind, Name: name}
	if res.Namespaced {
		ref.Namespace = o.namespace
	}
	return postmortem.Scope{Object: &ref}, nil
}

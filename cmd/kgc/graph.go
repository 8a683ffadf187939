package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/pkg/graph"
	"github.com/kgc-dev/kgc/pkg/render"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// graphOutputs are the formats of kgc graph, default first.
func graphOutputs() enum[outputFormat] {
	return oneOf(outputTree, outputText, outputTable, outputDOT, outputJSON, outputYAML, outputHTML)
}

// graphOptions draws the owner graph the garbage collector keeps.
type graphOptions struct {
	streams  *iostreams.IOStreams
	source   *sourceOptions
	output   outputFormat
	uids     []string
	args     []string
	selector string
	failIf   []string
	program  string // how the user runs kgc, for the hint to look further

	namespace string // resolved -n or the context's namespace
	explicit  bool   // -n was given
}

func newGraphCmd(f *Factory) *cobra.Command {
	o := &graphOptions{streams: f.IOStreams, source: newSourceOptions(f)}
	cmd := &cobra.Command{
		Use:   "graph [TYPE/NAME ... | TYPE NAME ... | --uid UID ... | [TYPE[,TYPE...]] -l SELECTOR]",
		Short: "Show the owner graph the garbage collector keeps, and its hazards",
		Long: `Show the owner graph the kube-controller-manager garbage collector keeps: every object of a
type it watches that has owners or dependents, and a virtual node for every owner it has not
seen. Nodes, edges and the beingDeleted, deletingDependents and virtual flags are those the
collector shows on its debug handler (/debug/controllers/garbage-collector-controller/graph), as
far as the objects' metadata can tell: a snapshot shows state, not the collector's history.

Under the graph kgc lists what will go wrong: dangling owners (the dependent will be deleted),
owners in another namespace (deleted too), owner kinds the cluster does not serve (never
collected, retried forever), cycles, stuck finalizers and malformed owner references.

With TYPE/NAME (several, as kubectl takes them: deploy/a sts/b, or deploy a b), --uid or -l
SELECTOR (of some types only with TYPE -l SELECTOR or TYPE1,TYPE2 -l SELECTOR), only the connected components of those objects are shown, as the debug handler's ?uid=
does: owners and dependents in any namespace are included. Without, the
namespace's objects (-n, or the context's namespace) are shown with everything connected to them,
wherever it lives; -A (the default offline when -n is not given) shows the whole graph.

Output formats: tree (the default: owners above dependents, then the findings), table (the
findings about each object in FLAGS), dot (Graphviz, attribute names as the debug handler's, each
hazard drawn in its own style, with a legend and the finding as tooltip), json and yaml (the
Graph document), html (one self-contained page: the graph drawn by kgc itself, no Graphviz
needed, with each hazard in the style dot gives it, a legend, search and zoom). The format is
chosen by -o alone, never by whether stdout is a terminal: to draw with Graphviz, pipe -o dot into
it (kgc graph … -o dot | dot -Tsvg > graph.svg), or open -o html in a browser.

--fail-if TYPE (repeatable; a finding type, or any) makes kgc exit 3 after printing the graph
when a finding of that type is shown, for CI gates.`,
		Example: `  kgc graph deploy/web -n shop
  kgc graph -A -o table
  kgc graph configmaps,secrets -l app=web -n shop
  kgc graph --uid 3f0c0e0a-… -o dot | dot -Tsvg > graph.svg
  kgc graph -n shop -f examples/cluster.yaml -o json
  kgc graph -A --fail-if dangling-owner --fail-if cross-namespace-owner -o table`,
		RunE: runE(o),
	}
	enumVar(cmd, &o.output, "output", "o", string(outputTree), graphOutputs(), "output format")
	cmd.Flags().StringArrayVar(&o.uids, "uid", nil, "show the connected component of the object with this UID (repeatable)")
	cmd.Flags().StringVarP(&o.selector, "selector", "l", "", "show the connected components of the objects with these labels (kubectl's selector syntax: -l app=web,tier!=db), in the namespace or with -A everywhere")
	enumArrayVar(cmd, &o.failIf, "fail-if", oneOf(append([]string{"any"}, graphFindingTypes()...)...),
		"exit 3 when a shown finding has this type, or any (repeatable)")
	o.source.AddFlags(cmd.Flags())
	cmd.ValidArgsFunction = objectArgs(f.ConfigFlags, o.source)
	return cmd
}

func (o *graphOptions) Complete(cmd *cobra.Command, args []string) error {
	o.args, o.program = args, programName(cmd)
	ns, explicit, err := o.source.Namespace()
	if err != nil {
		return err
	}
	o.namespace, o.explicit = ns, explicit
	return nil
}

func (o *graphOptions) Validate() error {
	if err := checkSelection(o.args, len(o.uids) > 0, o.selector); err != nil {
		return err
	}
	// -A wins over -n, as in kubectl: the namespace is ignored.
	for _, u := range o.uids {
		if strings.TrimSpace(u) == "" {
			return usageErrorf("--uid needs a UID")
		}
	}
	return nil
}

// graphFindingTypes are the finding types --fail-if accepts.
func graphFindingTypes() []string {
	return []string{
		graph.FindingCycle, graph.FindingDanglingOwner, graph.FindingUnknownOwner, graph.FindingCrossNamespaceOwner,
		graph.FindingNamespacedOwnerOfGlobal, graph.FindingUnresolvableOwnerKind, graph.FindingOwnerIdentityMismatch,
		graph.FindingDuplicateUID, graph.FindingStuckFinalizer, graph.FindingInvalidOwnerReference,
	}
}

// checkGates fails with exit 3 when a shown finding matches --fail-if,
// naming how many of each type did.
func (o *graphOptions) checkGates(fs []graph.Finding) error {
	if len(o.failIf) == 0 {
		return nil
	}
	counts := map[string]int{}
	var types []string
	for _, f := range fs {
		if !slices.Contains(o.failIf, "any") && !slices.Contains(o.failIf, f.Type) {
			continue
		}
		if counts[f.Type] == 0 {
			types = append(types, f.Type)
		}
		counts[f.Type]++
	}
	if len(types) == 0 {
		return nil
	}
	var parts []string
	for _, t := range types {
		parts = append(parts, fmt.Sprintf("%d %s", counts[t], t))
	}
	return gateError(fmt.Errorf("--fail-if: found %s", strings.Join(parts, ", ")))
}

func (o *graphOptions) Run(ctx context.Context) error {
	snap, err := o.source.Load(ctx, askedNamespaces(o.namespace, o.source.AllNamespaces, o.args))
	if err != nil {
		return err
	}
	view, err := o.view(snap)
	if err != nil {
		return err
	}
	view.CapturedAt = snap.CapturedAt
	view.Scope = o.scope(snap)
	if len(view.Nodes) == 0 && view.Namespace != "" && len(o.args) == 0 && len(o.uids) == 0 && o.selector == "" {
		view.Elsewhere = elsewhere(snap, view.Namespace, inOwnerGraph(snap), o.program+" graph -A")
	}
	switch o.output {
	case outputTree, outputText:
		err = render.GraphTree(o.streams.Out, view, outStyle(o.streams))
	case outputTable:
		err = render.GraphTable(o.streams.Out, view, outStyle(o.streams))
	case outputDOT:
		err = render.GraphDOT(o.streams.Out, view)
	case outputHTML:
		err = render.GraphHTML(o.streams.Out, view)
	default:
		err = render.GraphDocumentTo(o.streams.Out, string(o.output), view)
	}
	if err != nil {
		return err
	}
	return o.checkGates(view.FindingList())
}

// view selects what to show: a component, a namespace or everything, and
// the findings about it. A component is all the graph a question about
// some objects needs, so only it is replayed.
func (o *graphOptions) view(snap *snapshot.Snapshot) (render.GraphView, error) {
	selected, err := o.selected(snap)
	if err != nil {
		return render.GraphView{}, err
	}
	if o.selector != "" && len(selected) == 0 {
		return render.GraphView{Graph: graph.Replay(snap)}, nil
	}
	if len(selected) > 0 {
		g := graph.ReplayAbout(snap, selected...)
		for _, uid := range selected {
			if err := o.explainAbsence(snap, g, uid); err != nil {
				return render.GraphView{}, err
			}
		}
		nodes := g.Component(selected...)
		contextNS := ""
		if n := g.Node(selected[0]); n != nil {
			contextNS = n.Identity().Namespace
		}
		return render.GraphView{Graph: g, Nodes: nodes, Selected: selected, Namespace: contextNS,
			Findings: g.FindingsAbout(nodes, selected, nil)}, nil
	}
	if o.source.AllNamespaces || o.namespace == "" {
		g := graph.Replay(snap)
		nodes := g.Nodes()
		return render.GraphView{Graph: g, Nodes: nodes, FindingsLater: g.AllFindingsLater(), All: true}, nil
	}
	if err := checkNamespace(snap, o.namespace, o.explicit); err != nil {
		return render.GraphView{}, err
	}
	g := graph.ReplayAboutNamespaces(snap, o.namespace)
	nodes := g.InNamespaces(o.namespace)
	return render.GraphView{Graph: g, Nodes: nodes, Namespace: o.namespace,
		Findings: g.FindingsAbout(nodes, nil, []string{o.namespace})}, nil
}

// selected are the UIDs of the objects asked about: by --uid, TYPE/NAME
// or -l.
func (o *graphOptions) selected(snap *snapshot.Snapshot) ([]string, error) {
	if o.selector != "" {
		return selectObjects(snap, o.selector, o.args, o.namespace, o.source.AllNamespaces)
	}
	selected := slices.Clone(o.uids)
	groups, err := splitObjectArgs(o.args)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		obj, err := o.source.Resolve(snap, g, o.namespace)
		if err != nil {
			return nil, err
		}
		selected = append(selected, obj.Metadata.UID)
	}
	return selected, nil
}

// inOwnerGraph reports whether an object has owners or dependents, as
// far as its owner references tell: what the namespace view shows.
func inOwnerGraph(snap *snapshot.Snapshot) func(*snapshot.Object) bool {
	owners := map[string]bool{}
	for i := range snap.Objects {
		for _, r := range snap.Objects[i].Metadata.OwnerReferences {
			owners[r.UID] = true
		}
	}
	return func(o *snapshot.Object) bool {
		return len(o.Metadata.OwnerReferences) > 0 || owners[o.Metadata.UID]
	}
}

// scope says where the graph was looked at: the objects asked about, the
// namespace, or all of them, and the source (files by name, or the
// cluster's server).
func (o *graphOptions) scope(snap *snapshot.Snapshot) string {
	var what string
	switch {
	case o.selector != "":
		what = selectorScope(o.selector, o.args, o.namespace, o.source.AllNamespaces)
	case len(o.args) > 0:
		what = "connected to " + strings.Join(o.args, " ")
		if o.namespace != "" {
			what += " -n " + o.namespace
		}
	case len(o.uids) > 0:
		what = "connected to uid " + strings.Join(o.uids, ", uid ")
	case o.source.AllNamespaces || o.namespace == "":
		what = "in any namespace"
	default:
		what = "in namespace " + o.namespace
	}
	switch {
	case snap.Source.Type == "files" && len(snap.Source.Files) > 0:
		names := make([]string, len(snap.Source.Files))
		for i, f := range snap.Source.Files {
			names[i] = filepath.Base(f)
		}
		what += ", in " + strings.Join(names, ", ")
	case snap.Source.Server != "":
		what += ", in the cluster at " + snap.Source.Server
	}
	return what
}

// explainAbsence tells on stderr why a requested object will not show up:
// the collector's graph holds only objects of types it watches. A UID that
// names nothing at all is not found, as graph TYPE/NAME of a missing
// object is (exit 1).
func (o *graphOptions) explainAbsence(snap *snapshot.Snapshot, g *graph.Graph, uid string) error {
	if g.Node(uid) != nil {
		return nil
	}
	for i := range snap.Objects {
		if obj := &snap.Objects[i]; obj.Metadata.UID == uid {
			fmt.Fprintf(o.streams.ErrOut, "warning: %s is not in the garbage collector's graph: the collector does not watch its type, so it never collects it nor treats it as an owner it has seen\n",
				obj.Ref())
			return nil
		}
	}
	return fmt.Errorf("no object with uid %q %s, and none names it as an owner: check the UID (kubectl get TYPE NAME -o jsonpath='{.metadata.uid}')", uid, where(snap))
}

package main

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

// completionTimeout bounds the cluster requests of one completion: a shell
// waiting on TAB longer than this is worse than offering nothing.
const completionTimeout = 5 * time.Second

// clusterCompletion completes arguments and flags from the live cluster,
// as kubectl does: TYPE from discovery (plurals and short names), NAME from
// a list of that type, -n from the namespaces, --context, --cluster and
// --user from the kubeconfig. It fails soft: without a cluster, or on any
// error, it offers nothing and prints nothing; cobra.CompDebugln records
// why in $BASH_COMP_DEBUG_FILE for whoever debugs it.
type clusterCompletion struct {
	cf *genericclioptions.ConfigFlags
}

// registerConfigFlagCompletion completes the shared kubeconfig flags.
func registerConfigFlagCompletion(root *cobra.Command, cf *genericclioptions.ConfigFlags) {
	c := clusterCompletion{cf: cf}
	complete := map[string]cobra.CompletionFunc{
		"namespace": c.namespaces,
		"context":   c.kubeconfigNames(func(k *clientcmdapi.Config) []string { return keys(k.Contexts) }),
		"cluster":   c.kubeconfigNames(func(k *clientcmdapi.Config) []string { return keys(k.Clusters) }),
		"user":      c.kubeconfigNames(func(k *clientcmdapi.Config) []string { return keys(k.AuthInfos) }),
	}
	for name, f := range complete {
		// The only error is a flag that does not exist or is
		// registered twice, which TestCompletionFromTheLiveCluster catches.
		_ = root.RegisterFlagCompletionFunc(name, f)
	}
}

// objectCompleter offers the TYPE and NAME words of the objects a command
// can name.
type objectCompleter interface {
	types(prefix string) []string
	names(typ string, all bool, prefix string) []string
}

// objectArgs completes TYPE/NAME, or TYPE then NAME, for the commands that
// name an object: from the live cluster, or with -f from the input the
// command will read (a dump may come from another cluster than the
// kubeconfig's, so the cluster is not asked).
func objectArgs(cf *genericclioptions.ConfigFlags, src *sourceOptions) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var c objectCompleter = clusterCompletion{cf: cf}
		if src.Offline() {
			c = dumpCompletion{src: src}
		}
		switch {
		case len(args) == 0 && strings.Contains(toComplete, "/"):
			typ, prefix, _ := strings.Cut(toComplete, "/")
			names := c.names(typ, src.AllNamespaces, prefix)
			for i := range names {
				names[i] = typ + "/" + names[i]
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		case len(args) == 0:
			return c.types(toComplete), cobra.ShellCompDirectiveNoFileComp
		case len(args) == 1 && !strings.Contains(args[0], "/"):
			return c.names(args[0], src.AllNamespaces, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// dumpCompletion completes from the -f input: the types of its objects
// (plural and short names) and their names, in the -n namespace unless -A
// (any namespace otherwise, as offline commands look). Standard input is
// not read: the command has yet to. It fails soft, as clusterCompletion.
type dumpCompletion struct {
	src *sourceOptions
}

// read is the input, or nil.
func (d dumpCompletion) read() *snapshot.Snapshot {
	if slices.Contains(d.src.Filenames, "-") {
		return nil
	}
	snap, err := snapshotio.ReadFiles(d.src.Filenames, nil, snapshotio.ReadOptions{})
	if err != nil {
		cobra.CompDebugln("kgc: completing from -f: "+err.Error(), false)
		return nil
	}
	return snap
}

func (d dumpCompletion) types(prefix string) []string {
	snap := d.read()
	if snap == nil {
		return nil
	}
	cat := snap.Catalog()
	var out []string
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if r, ok := cat.ForGroupKind(apiGroup(o.APIVersion), o.Kind); ok {
			out = append(out, r.Resource)
			out = append(out, r.ShortNames...)
		}
	}
	return withPrefix(out, prefix)
}

func (d dumpCompletion) names(typ string, all bool, prefix string) []string {
	snap := d.read()
	if snap == nil {
		return nil
	}
	r, err := snap.Catalog().Resolve(typ)
	if err != nil {
		cobra.CompDebugln("kgc: completing a name of "+typ+": "+err.Error(), false)
		return nil
	}
	ns := ""
	if n := d.src.configFlags.Namespace; n != nil && r.Namespaced && !all {
		ns = *n
	}
	var out []string
	for i := range snap.Objects {
		o := &snap.Objects[i]
		if o.Kind == r.Kind && apiGroup(o.APIVersion) == r.Group && (ns == "" || o.Metadata.Namespace == ns) {
			out = append(out, o.Metadata.Name)
		}
	}
	return withPrefix(out, prefix)
}

// apiType is one listable resource type as discovery serves it.
type apiType struct {
	gvr        schema.GroupVersionResource
	kind       string
	singular   string
	short      []string
	namespaced bool
}

// names accepted for the type on the command line, lower case.
func (t apiType) names() []string {
	n := []string{t.gvr.Resource, t.singular, strings.ToLower(t.kind)}
	return append(n, t.short...)
}

// matches reports whether s names t: kubectl's plural, singular, kind or
// short name, optionally qualified by the group (deployments.apps).
func (t apiType) matches(s string) bool {
	s = strings.ToLower(s)
	for _, n := range t.names() {
		if n != "" && (s == n || s == n+"."+t.gvr.Group) {
			return true
		}
	}
	return false
}

// types lists the TYPE words to offer: each type's plural (qualified by
// its group when two groups share it) and short names.
func (c clusterCompletion) types(prefix string) []string {
	types, err := c.discover()
	if err != nil {
		cobra.CompDebugln("kgc: completing a type: "+err.Error(), false)
		return nil
	}
	groups := map[string]int{}
	for _, t := range types {
		groups[t.gvr.Resource]++
	}
	var out []string
	for _, t := range types {
		word := t.gvr.Resource
		if groups[word] > 1 && t.gvr.Group != "" {
			word += "." + t.gvr.Group
		}
		out = append(out, word)
		out = append(out, t.short...)
	}
	return withPrefix(out, prefix)
}

// names lists the names of the objects of type typ in the namespace kgc
// would look in (-n, else the context's), or in all with -A.
func (c clusterCompletion) names(typ string, all bool, prefix string) []string {
	names, err := c.list(typ, all)
	if err != nil {
		cobra.CompDebugln("kgc: completing a name of "+typ+": "+err.Error(), false)
		return nil
	}
	return withPrefix(names, prefix)
}

func (c clusterCompletion) list(typ string, all bool) ([]string, error) {
	types, err := c.discover()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(types, func(t apiType) bool { return t.matches(typ) })
	if i < 0 {
		return nil, errors.New("no such type")
	}
	ns := ""
	if types[i].namespaced && !all {
		if ns, _, err = c.cf.ToRawKubeConfigLoader().Namespace(); err != nil {
			return nil, err
		}
	}
	cfg, err := c.restConfig()
	if err != nil {
		return nil, err
	}
	mc, err := metadata.NewForConfig(metadata.ConfigFor(cfg))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	defer cancel()
	// resourceVersion=0: the watch cache serves it, the cheapest list.
	list, err := mc.Resource(types[i].gvr).Namespace(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, item := range list.Items {
		names = append(names, item.Name)
	}
	return names, nil
}

// namespaces completes -n.
func (c clusterCompletion) namespaces(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return c.names("namespaces", true, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// kubeconfigNames completes a flag from the kubeconfig's entries.
func (c clusterCompletion) kubeconfigNames(of func(*clientcmdapi.Config) []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		raw, err := c.cf.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			cobra.CompDebugln("kgc: reading the kubeconfig: "+err.Error(), false)
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return withPrefix(of(&raw), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// discover lists the listable types at their preferred versions. A group
// whose discovery fails (a broken aggregated API) is left out, the rest
// offered.
func (c clusterCompletion) discover() ([]apiType, error) {
	cfg, err := c.restConfig()
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, err
	}
	var types []apiType
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			types = append(types, apiType{gvr: gv.WithResource(r.Name), kind: r.Kind, singular: r.SingularName,
				short: r.ShortNames, namespaced: r.Namespaced})
		}
	}
	return types, nil
}

// restConfig is the kubeconfig's, bounded in time and silent: completion
// output is the shell's, and a server warning there would be noise.
func (c clusterCompletion) restConfig() (*rest.Config, error) {
	cfg, err := c.cf.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 || cfg.Timeout > completionTimeout {
		cfg.Timeout = completionTimeout
	}
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg, nil
}

// withPrefix keeps the words that start with prefix, sorted, once each.
func withPrefix(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

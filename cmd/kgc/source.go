package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/pkg/capture"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

// sourceOptions is where an analysis command gets its snapshot: dumps and
// snapshot files given with -f, or else a live capture through the
// kubeconfig. graph, plan, why-stuck and snapshot share it.
type sourceOptions struct {
	configFlags    *genericclioptions.ConfigFlags
	streams        *iostreams.IOStreams
	liveCapture    func(context.Context, capture.Options) (*snapshot.Snapshot, error)
	Filenames      []string
	AllNamespaces  bool
	ConsistentRead bool
	// CapturedAt overrides an offline input's capture time (RFC 3339).
	CapturedAt string
	// Verbosity is -v: 1 and up lists every type RBAC kept kgc from
	// reading instead of a summary.
	Verbosity int
	// ChunkSize is --chunk-size, the objects per list page.
	ChunkSize chunkSize
}

// chunkSize is kubectl's --chunk-size: how many objects a list page holds
// at most, 0 for no paging. Its zero value is the capture's default, so
// that a command without the flag pages as the others do by default.
type chunkSize struct {
	n   int64
	set bool
}

func (c *chunkSize) String() string {
	if !c.set {
		return strconv.FormatInt(capture.DefaultPageSize, 10)
	}
	return strconv.FormatInt(c.n, 10)
}

// Set rejects what is not a number of objects: a negative limit would be
// refused by the API server for every type, one by one.
func (c *chunkSize) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("give a number of objects per list page, or 0 to list each type in one request")
	}
	*c = chunkSize{n: n, set: true}
	return nil
}

func (c *chunkSize) Type() string { return "int" }

// pageSize is the capture's PageSize for it.
func (c chunkSize) pageSize() int64 {
	switch {
	case !c.set:
		return 0
	case c.n == 0:
		return capture.NoPaging
	}
	return c.n
}

// addChunkSizeFlag adds --chunk-size, for every command that lists the
// live cluster.
func addChunkSizeFlag(fs *pflag.FlagSet, p *chunkSize) {
	fs.Var(p, "chunk-size", "live: list objects in pages of this many, as kubectl's --chunk-size (kgc's default is twice kubectl's 500: it reads metadata only); 0 lists each type in one request. The API server may send a list from its watch cache (without --consistent-read) whole")
}

func newSourceOptions(f *Factory) *sourceOptions {
	return &sourceOptions{configFlags: f.ConfigFlags, streams: f.IOStreams, liveCapture: f.Capture}
}

// AddFlags adds the input flags and -A/--all-namespaces.
func (o *sourceOptions) AddFlags(fs *pflag.FlagSet) {
	o.AddInputFlags(fs)
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "consider objects in every namespace, not only the current one")
}

// AddInputFlags adds the flags that choose what is read (-f/--filename,
// --consistent-read), for commands where -A means nothing.
func (o *sourceOptions) AddInputFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.ConsistentRead, "consistent-read", false,
		"live: read from etcd with quorum reads instead of the API server's watch cache (the garbage collector's own view, milliseconds behind, several times cheaper)")
	fs.StringSliceVarP(&o.Filenames, "filename", "f", nil,
		"read dumps or snapshots instead of the cluster: kubectl get -o yaml|json output, kubectl cluster-info dump folders, kgc snapshot files (.gz too); a folder is read recursively, - is stdin; repeatable")
	addChunkSizeFlag(fs, &o.ChunkSize)
	fs.IntVarP(&o.Verbosity, "v", "v", 0, "verbosity, as kubectl's -v: 1 and up lists every type kgc could not read instead of a summary; 6 and up log every HTTP request (7 with headers, 8 with responses)")
	fs.StringVar(&o.CapturedAt, "captured-at", "",
		"with -f: when the dump was taken (RFC 3339, e.g. 2026-11-20T10:00:00Z), which ages and grace periods count from; default: a snapshot file's own time, else the newest file's modification time")
}

// readFiles reads the -f input and applies --captured-at.
func (o *sourceOptions) readFiles() (*snapshot.Snapshot, error) {
	var at time.Time
	if o.CapturedAt != "" {
		var err error
		if at, err = time.Parse(time.RFC3339, o.CapturedAt); err != nil {
			return nil, usageErrorf("--captured-at %q: give a time like 2026-11-20T10:00:00Z", o.CapturedAt)
		}
	}
	snap, err := snapshotio.ReadFiles(o.Filenames, o.streams.In, snapshotio.ReadOptions{})
	if err != nil {
		return nil, err
	}
	if !at.IsZero() {
		snap.CapturedAt = at.UTC()
	}
	return snap, nil
}

// checkLive rejects the offline-only flags on a live capture.
func (o *sourceOptions) checkLive() error {
	if o.CapturedAt != "" {
		return usageErrorf("--captured-at applies to -f input only: a live capture is taken now")
	}
	return nil
}

// Offline reports whether the source is files.
func (o *sourceOptions) Offline() bool { return len(o.Filenames) > 0 }

// Load reads the files, or captures the whole cluster (owners can live in
// any namespace, so a namespace-limited capture would call them missing).
// asked are the namespaces the command asks about (askedNamespaces): where
// RBAC forbids reading the whole cluster, a capture reads those, as
// kubectl get -n does, and fails if it can read none of them. Warnings go
// to stderr; the progress line only to a terminal.
func (o *sourceOptions) Load(ctx context.Context, asked []string) (*snapshot.Snapshot, error) {
	var snap *snapshot.Snapshot
	var err error
	if o.Offline() {
		snap, err = o.readFiles()
	} else if err = o.checkLive(); err == nil {
		snap, err = o.capture(ctx, "", asked)
	}
	if err != nil {
		return nil, err
	}
	o.printWarnings(snap)
	return snap, nil
}

// capture runs a live capture with progress on a terminal stderr:
// namespaced types limited to namespace if given, and read in the asked
// namespaces where RBAC forbids the cluster scope.
func (o *sourceOptions) capture(ctx context.Context, namespace string, asked []string) (*snapshot.Snapshot, error) {
	if err := o.checkKubeconfig(); err != nil {
		return nil, err
	}
	logHTTP(o.Verbosity, o.streams.ErrOut)
	opts := o.captureOptions(namespace, asked)
	opts.Progress = o.streams.Progress()
	return o.liveCapture(ctx, opts)
}

// captureOptions are the capture's options from the source flags.
func (o *sourceOptions) captureOptions(namespace string, asked []string) capture.Options {
	return capture.Options{Namespace: namespace, Namespaces: asked, Context: o.contextName(),
		ConsistentRead: o.ConsistentRead, PageSize: o.ChunkSize.pageSize()}
}

func (o *sourceOptions) contextName() string {
	if o.configFlags.Context != nil && *o.configFlags.Context != "" {
		return *o.configFlags.Context
	}
	raw, err := o.configFlags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return ""
	}
	return raw.CurrentContext
}

func (o *sourceOptions) printWarnings(snap *snapshot.Snapshot) {
	for _, w := range snap.Warnings {
		fmt.Fprintf(o.streams.ErrOut, "warning: %s\n", w.String())
	}
	if snap.Source.Type == "live" {
		for _, line := range capture.RBACWarnings(snap, o.Verbosity) {
			fmt.Fprintf(o.streams.ErrOut, "warning: %s\n", line)
		}
	}
}

// checkKubeconfig fails when --kubeconfig names a file that is not there:
// client-go would go on without it and fail later with a message about
// whatever it needed first (the namespace, the server), not the file.
func (o *sourceOptions) checkKubeconfig() error {
	path := ""
	if o.configFlags.KubeConfig != nil {
		path = *o.configFlags.KubeConfig
	}
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("cannot read the kubeconfig file given with --kubeconfig: %w; give an existing file, or read dumps with -f", err)
	}
	return nil
}

// Namespace is -n when given (explicit), else the kubeconfig context's
// namespace for a live source, else "" offline (any namespace).
func (o *sourceOptions) Namespace() (ns string, explicit bool, err error) {
	if o.configFlags.Namespace != nil && *o.configFlags.Namespace != "" {
		return *o.configFlags.Namespace, true, nil
	}
	if o.Offline() {
		return "", false, nil
	}
	if err := o.checkKubeconfig(); err != nil {
		return "", false, err
	}
	ns, _, err = o.configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", false, fmt.Errorf("cannot read the namespace from the kubeconfig: %w", err)
	}
	return ns, false, nil
}

// explicitNamespace reports whether -n was given.
func (o *sourceOptions) explicitNamespace() bool {
	return o.configFlags.Namespace != nil && *o.configFlags.Namespace != ""
}

// where names the input in messages.
func where(snap *snapshot.Snapshot) string {
	if snap.Source.Type == "files" && len(snap.Source.Files) > 0 {
		return "in " + strings.Join(snap.Source.Files, ", ")
	}
	if snap.Source.Server != "" {
		return "in the cluster at " + snap.Source.Server
	}
	return "in the snapshot"
}

// Resolve finds the object named by "TYPE/NAME" or "TYPE NAME". A
// namespaced type is looked up in namespace; "" means not given: offline,
// a name unique across namespaces is accepted, live it is "default" as in
// kubectl.
func (o *sourceOptions) Resolve(snap *snapshot.Snapshot, args []string, namespace string) (*snapshot.Object, error) {
	var typ, name string
	switch {
	case len(args) == 1 && strings.Contains(args[0], "/"):
		typ, name, _ = strings.Cut(args[0], "/")
	case len(args) == 2 && !strings.Contains(args[0], "/"):
		typ, name = args[0], args[1]
	default:
		return nil, usageErrorf("expected TYPE/NAME or TYPE NAME, got %q", strings.Join(args, " "))
	}
	if typ == "" || name == "" || strings.Contains(name, "/") {
		return nil, usageErrorf("expected TYPE/NAME or TYPE NAME, got %q", strings.Join(args, " "))
	}
	r, err := snap.Catalog().Resolve(typ)
	if err != nil {
		return nil, err
	}
	var matches []*snapshot.Object
	for i := range snap.Objects {
		obj := &snap.Objects[i]
		if obj.Kind != r.Kind || obj.Metadata.Name != name || apiGroup(obj.APIVersion) != r.Group {
			continue
		}
		matches = append(matches, obj)
	}
	notListed := ""
	if !r.Listed {
		notListed = "; " + snap.Unlisted(r)
	}
	if !r.Namespaced {
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s %q not found (%s)%s", r.QualifiedName(), name, where(snap), notListed)
		}
		return matches[0], nil
	}
	if namespace == "" && !o.Offline() {
		namespace = "default"
	}
	if namespace == "" {
		switch len(matches) {
		case 1:
			return matches[0], nil
		case 0:
			return nil, fmt.Errorf("%s %q not found in any namespace (%s)%s", r.QualifiedName(), name, where(snap), notListed)
		}
		return nil, fmt.Errorf("%s %q exists in namespaces %s (%s): choose one with -n", r.QualifiedName(), name, namespacesOf(matches), where(snap))
	}
	for _, m := range matches {
		if m.Metadata.Namespace == namespace {
			return m, nil
		}
	}
	if len(matches) == 0 {
		if err := checkNamespace(snap, namespace, o.explicitNamespace() || o.Offline()); err != nil {
			return nil, err
		}
	}
	msg := fmt.Sprintf("%s %q not found in namespace %q (%s)%s", r.QualifiedName(), name, namespace, where(snap), notListed)
	if len(matches) > 0 {
		msg += fmt.Sprintf("; it exists in namespace %s: use -n", namespacesOf(matches))
	}
	return nil, fmt.Errorf("%s", msg)
}

func namespacesOf(objs []*snapshot.Object) string {
	var ns []string
	for _, o := range objs {
		ns = append(ns, fmt.Sprintf("%q", o.Metadata.Namespace))
	}
	sort.Strings(ns)
	return strings.Join(ns, ", ")
}

func apiGroup(apiVersion string) string {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// ResolveUID finds the object with uid.
func (o *sourceOptions) ResolveUID(snap *snapshot.Snapshot, uid string) (*snapshot.Object, error) {
	for i := range snap.Objects {
		if snap.Objects[i].Metadata.UID == uid {
			return &snap.Objects[i], nil
		}
	}
	return nil, fmt.Errorf("no object with uid %q (%s)", uid, where(snap))
}

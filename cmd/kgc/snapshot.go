package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kgc-dev/kgc/internal/iostreams"
	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

// snapshotOptions captures a live cluster, or converts dumps, into a kgc
// snapshot file.
type snapshotOptions struct {
	streams *iostreams.IOStreams
	source  *sourceOptions
	// output is -o: the format, or (deprecated) a file name.
	output snapshotOutput
	// file is --output-file; "" or "-" is stdout.
	file      string
	namespace string
	// now is the clock, for the elapsed time in the summary.
	now func() time.Time
}

func newSnapshotCmd(f *Factory) *cobra.Command {
	o := &snapshotOptions{streams: f.IOStreams, source: newSourceOptions(f), now: time.Now}
	cmd := &cobra.Command{
		Use:   "snapshot [--output-file FILE]",
		Short: "Capture a metadata-only snapshot of a cluster (or convert dumps) for offline analysis",
		Long: `Capture the metadata of every object of every listable type of the cluster into one file,
which every kgc command reads back with -f. Only metadata is kept (no spec, status, data,
annotations or managedFields) plus the few facts diagnosis and plans need (a pod's node and phase,
a workload's replicas and whether it is paused, never a pod template), so the file holds no secrets.

Types that cannot be listed (RBAC, a broken aggregated API) are recorded as not listed: their
missing owners are reported as unknown rather than dangling.

With -n, namespaced types are listed in that namespace only; the snapshot records the namespace,
and owners elsewhere will look missing to the analysis, so prefer whole-cluster snapshots.

The snapshot goes to stdout, or to --output-file FILE (FILE.gz is gzipped; the file is written
whole or not at all). -o is the output format, as in every kgc command: json (the default) or
yaml, the same Snapshot document. The old form -o FILE still writes FILE, with a warning.`,
		Example: `  kgc snapshot --output-file cluster.json.gz
  kgc snapshot > cluster.json
  kgc snapshot -f cluster-info-dump/ --output-file cluster.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("kgc snapshot takes no arguments, got %q: it captures the whole cluster (or the -f inputs)", strings.Join(args, " "))
			}
			return nil
		},
		RunE: runE(o),
	}
	o.output.format = outputJSON
	cmd.Flags().VarP(&o.output, "output", "o", "output format: {json|yaml}")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{string(outputJSON), string(outputYAML)}, cobra.ShellCompDirectiveNoFileComp
	})
	cmd.Flags().StringVar(&o.file, "output-file", "", "write the snapshot to FILE instead of stdout (FILE.gz is gzipped)")
	o.source.AddInputFlags(cmd.Flags())
	return cmd
}

// Complete takes -n only when given: a snapshot covers the whole cluster
// unless asked otherwise, whatever the context's default namespace. It
// turns the deprecated -o FILE into --output-file FILE.
func (o *snapshotOptions) Complete(*cobra.Command, []string) error {
	if ns := o.source.configFlags.Namespace; ns != nil {
		o.namespace = *ns
	}
	// The first form of kgc snapshot took the file as -o FILE.
	if path := o.output.path; path != "" {
		if o.file != "" {
			return usageErrorf("-o %s names a file and --output-file %s another: -o is the output format (json or yaml), give the file with --output-file only", path, o.file)
		}
		instead := "use --output-file " + path
		if path == "-" {
			instead = "leave it out: the snapshot goes to stdout"
		}
		fmt.Fprintf(o.streams.ErrOut, "warning: -o FILE is deprecated: -o is the output format (json or yaml) in every kgc command; %s\n", instead)
		o.file = path
	}
	return nil
}

func (o *snapshotOptions) Validate() error {
	if o.file == "" || o.file == "-" {
		return nil
	}
	ext := strings.ToLower(strings.TrimSuffix(o.file, ".gz"))
	yamlName := strings.HasSuffix(ext, ".yaml") || strings.HasSuffix(ext, ".yml")
	switch {
	case yamlName && o.output.format != outputYAML:
		return usageErrorf("%s: the snapshot is written as JSON: name the file .json or .json.gz, or write YAML with -o yaml --output-file %s", o.file, o.file)
	case strings.HasSuffix(ext, ".json") && o.output.format != outputJSON:
		return usageErrorf("%s: the snapshot is written as YAML (-o yaml): name the file .yaml or .yaml.gz", o.file)
	}
	return nil
}

func (o *snapshotOptions) Run(ctx context.Context) error {
	start := o.now()
	var snap *snapshot.Snapshot
	var err error
	if o.source.Offline() {
		snap, err = o.source.readFiles()
		if err == nil && o.namespace != "" {
			limitToNamespace(snap, o.namespace)
		}
	} else if err = o.source.checkLive(); err == nil {
		snap, err = o.source.capture(ctx, o.namespace, nil)
	}
	if err != nil {
		return err
	}
	if err := checkNamespace(snap, o.namespace, true); err != nil {
		return err
	}
	o.source.printWarnings(snap)
	if err := o.write(snap); err != nil {
		return err
	}
	fmt.Fprintln(o.streams.ErrOut, summary(snap, o.now().Sub(start)))
	return nil
}

// write writes the snapshot in the -o format to --output-file or stdout.
func (o *snapshotOptions) write(snap *snapshot.Snapshot) error {
	write := snapshotio.Write
	if o.output.format == outputYAML {
		write = snapshotio.WriteYAML
	}
	if o.file == "" || o.file == "-" {
		return write(o.streams.Out, snap)
	}
	return snapshotio.WriteFileAs(o.file, snap, write)
}

// snapshotOutput is snapshot's -o: a format, as in every command, or, in
// the form kgc snapshot had first, the file to write. A value that is no
// format is taken as that file (Complete warns), so that scripts written
// for the old form keep working.
type snapshotOutput struct {
	format outputFormat
	path   string
}

func (v *snapshotOutput) Set(s string) error {
	switch f := outputFormat(s); f {
	case outputJSON, outputYAML:
		v.format, v.path = f, ""
	default:
		v.format, v.path = outputJSON, s
	}
	return nil
}

func (v *snapshotOutput) String() string {
	if v.path != "" {
		return v.path
	}
	return string(v.format)
}

func (v *snapshotOutput) Type() string { return "string" }

// limitToNamespace drops namespaced objects outside ns, as a live capture
// with -n would not have listed them.
func limitToNamespace(snap *snapshot.Snapshot, ns string) {
	kept := snap.Objects[:0]
	cat := snap.Catalog()
	for _, obj := range snap.Objects {
		if obj.Metadata.Namespace == "" || obj.Metadata.Namespace == ns {
			kept = append(kept, obj)
		}
	}
	snap.Objects = kept
	for i := range snap.Resources {
		snap.Resources[i].Count = 0
	}
	counts := map[string]int{}
	for _, obj := range snap.Objects {
		if r, ok := cat.ForGroupKind(apiGroup(obj.APIVersion), obj.Kind); ok {
			counts[r.Group+"/"+r.Kind]++
		}
	}
	for i := range snap.Resources {
		r := &snap.Resources[i]
		r.Count = counts[r.Group+"/"+r.Kind]
		if r.Namespaced && r.Listed {
			r.Namespaces = []string{ns}
		}
	}
	snap.Source.Namespace = ns
}

// summary is the one line printed after writing: what was captured and
// which listable types are missing from it.
func summary(snap *snapshot.Snapshot, elapsed time.Duration) string {
	listed := 0
	var notListed []string
	for _, r := range snap.Resources {
		switch {
		case r.Listed:
			listed++
		case r.Error != "":
			notListed = append(notListed, r.QualifiedName())
		}
	}
	for _, d := range snap.DiscoveryErrors {
		notListed = append(notListed, d.GroupVersion+" (discovery failed)")
	}
	sort.Strings(notListed)
	verb := "captured"
	if snap.Source.Type == "files" {
		verb = "read"
	}
	s := fmt.Sprintf("%s %s of %s in %.1fs", verb, words.Count(len(snap.Objects), "object"), words.Count(listed, "type"), elapsed.Seconds())
	if len(notListed) > 0 {
		shown := notListed
		if len(shown) > 10 {
			shown = append(shown[:10:10], "…")
		}
		s += fmt.Sprintf(" (%s not listed: %s)", words.Count(len(notListed), "type"), strings.Join(shown, ", "))
	}
	return s
}

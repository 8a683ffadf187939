// Command auditgen writes a realistic kube-apiserver audit log for
// benchmarks: go run ./test/bench/auditgen -events 1000000 -o FILE [-gzip]
// [-write-heavy], or rewrites such a log in a platform's export form:
// -export aks-diagnostics|eks-cloudwatch|gke-logentry -in FILE -o FILE.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/kgc-dev/kgc/test/bench/auditgen/gen"
)

func main() {
	events := flag.Int("events", 1_000_000, "audit events (lines) to write")
	out := flag.String("o", "", "output file (required)")
	gz := flag.Bool("gzip", false, "gzip the output")
	seed := flag.Uint64("seed", 1, "the same seed writes the same log")
	writes := flag.Bool("write-heavy", false, "a busy cluster's RequestResponse log: half the events writes with bodies")
	export := flag.String("export", "", "rewrite the log -in names in this platform's form: "+strings.Join(gen.Exports, ", "))
	in := flag.String("in", "", "the native log -export rewrites")
	flag.Parse()
	if *export != "" {
		if err := exportLog(*in, *out, *export); err != nil {
			fmt.Fprintln(os.Stderr, "auditgen:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*out, gen.Options{Events: *events, Seed: *seed, WriteHeavy: *writes}, *gz); err != nil {
		fmt.Fprintln(os.Stderr, "auditgen:", err)
		os.Exit(1)
	}
}

func run(path string, opts gen.Options, gz bool) error {
	if path == "" {
		return fmt.Errorf("-o FILE is required")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(f)
		w = zw
	}
	st, err := gen.Write(w, opts)
	if err == nil && zw != nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		fmt.Fprintf(os.Stderr, "auditgen: %d events, %d writes, %d cascades, %d deletes, %d bytes of JSON\n", st.Events, st.Writes, st.Cascades, st.Deletes, st.Bytes)
	}
	return err
}

func exportLog(in, out, form string) error {
	if in == "" || out == "" {
		return fmt.Errorf("-export needs -in FILE and -o FILE")
	}
	r, err := os.Open(in)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	err = gen.Export(w, r, form)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

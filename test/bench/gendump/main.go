// Command gendump writes a synthetic `kubectl get -A -o json` dump for
// benchmarking kgc's readers: gendump -n 1000000 -o /tmp/dump.json.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kgc-dev/kgc/test/bench/dumpgen"
)

func main() {
	n := flag.Int("n", 1000000, "number of objects")
	out := flag.String("o", "-", "output file (- for stdout)")
	flag.Parse()
	if err := run(*n, *out); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// run writes the dump of n objects to out, and says whether all of it
// reached the file.
func run(n int, out string) error {
	if out == "-" {
		return write(os.Stdout, n)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := write(f, n); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func write(w *os.File, n int) error {
	count, err := dumpgen.Write(w, n)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %d objects\n", count)
	return nil
}

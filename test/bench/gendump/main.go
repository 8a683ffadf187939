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
	w := os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	count, err := dumpgen.Write(w, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "wrote %d objects\n", count)
}

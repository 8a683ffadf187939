package main

import (
	"io"

	"github.com/kgc-dev/kgc/internal/iostreams"
)

// testFactory is the real factory around streams that are no terminal,
// as when kgc's output is piped.
func testFactory(in io.Reader, out, errOut io.Writer) *Factory {
	return NewFactory(&iostreams.IOStreams{In: in, Out: out, ErrOut: errOut})
}

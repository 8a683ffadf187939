package words_test

// `go test ./... -update` hands -update to every test binary. This package
// has no golden files: it imports golden only so that the flag is defined
// and that command does not fail here.
import _ "github.com/kgc-dev/kgc/internal/golden"

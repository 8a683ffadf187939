package render

import (
	"bufio"
	"fmt"
	"io"
	"reflect"

	"github.com/kgc-dev/kgc/pkg/postmortem"
)

// PostMortemJSON writes the JSON document of an analysis exactly as
// Document writes the PostMortem Analyze returns, but builds its roots a
// batch at a time as it writes them, and fills what follows them once
// they are written: the roots' documents are never all held at once.
func PostMortemJSON(w io.Writer, a *postmortem.Analysis) error {
	err := streamJSONWith(w, a.Document(), "roots", func(bw *bufio.Writer) error {
		n := 0
		err := a.Roots(postmortem.RootBatch, func(roots []postmortem.Root) error {
			if n == 0 {
				bw.WriteString("[")
			}
			err := streamElements(bw, reflect.ValueOf(roots), n)
			n += len(roots)
			return err
		})
		if err != nil {
			return err
		}
		a.Finish()
		if n == 0 {
			_, err = bw.WriteString("[]")
			return err
		}
		_, err = bw.WriteString("\n  ]")
		return err
	})
	if err != nil {
		return fmt.Errorf("encoding json: %w", err)
	}
	return nil
}

package render

import (
	"bufio"
	"embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The HTML pages (-o html) are for people: one self-contained file each,
// its style and script inline and written for kgc, so that it opens from
// a file, offline, and asks nothing of the network. html/template escapes
// every value, in the markup and in the JSON the script reads, so that no
// name an object carries can become markup. What the page shows is what
// the command's document holds: metadata only.
//
//go:embed page/*.tmpl
var pageTemplates embed.FS

// htmlPage is what every page template is given.
type htmlPage struct {
	// Kind names the page's template and the script's part: postmortem,
	// plan, why-stuck or graph.
	Kind  string
	Title string
	// Body is the page's own model, rendered by its template.
	Body any
	// Data is handed to the script as JSON: what it draws on demand.
	Data any
}

// writeHTMLPage renders page with its template.
func writeHTMLPage(w io.Writer, page htmlPage) error {
	t, err := template.New("page").Funcs(htmlFuncs()).ParseFS(pageTemplates, "page/*.tmpl")
	if err != nil {
		return fmt.Errorf("parsing the page templates: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := t.ExecuteTemplate(bw, "page", page); err != nil {
		return fmt.Errorf("writing the %s page: %w", page.Kind, err)
	}
	return bw.Flush()
}

// htmlFuncs are the helpers the templates call.
func htmlFuncs() template.FuncMap {
	return template.FuncMap{
		"stamp": stamp,
		"ref":   refText,
		"refs": func(rs []snapshot.ObjectRef) string {
			names := make([]string, len(rs))
			for i, r := range rs {
				names[i] = r.String()
			}
			return strings.Join(names, ", ")
		},
	}
}

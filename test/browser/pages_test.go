package browser

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

var update = flag.Bool("update", false, "retake the screenshots in docs/images of the pages that changed")

// objectsOf are the objects a command's JSON document answers about,
// as KIND/NAME: what its page must name.
func objectsOf(t *testing.T, doc []byte) []string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("the document: %v", err)
	}
	var out []string
	add := func(o any) {
		if m, ok := o.(map[string]any); ok && m["kind"] != nil && m["name"] != nil {
			if s := m["kind"].(string) + "/" + m["name"].(string); !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	each := func(list any, f func(map[string]any)) {
		l, _ := list.([]any)
		for _, x := range l {
			if m, ok := x.(map[string]any); ok {
				f(m)
			}
		}
	}
	var links func(any)
	links = func(list any) {
		each(list, func(l map[string]any) { add(l["object"]); links(l["dependents"]) })
	}
	var blockers func(any)
	blockers = func(list any) {
		each(list, func(b map[string]any) { add(b["object"]); blockers(b["blockers"]) })
	}
	diagnosis := func(d map[string]any) {
		add(d["object"])
		blockers(d["blockers"])
		each(d["rootCauses"], func(rc map[string]any) { add(rc["object"]) })
	}
	switch v["kind"] {
	case "Graph":
		each(v["nodes"], func(n map[string]any) { add(n) })
	case "Plan":
		add(v["target"])
		each(v["objects"], func(o map[string]any) { add(o["object"]) })
	case "Diagnosis":
		diagnosis(v)
	case "DiagnosisList":
		each(v["items"], diagnosis)
	case "PostMortem":
		each(v["roots"], func(r map[string]any) { add(r["request"].(map[string]any)["object"]); links(r["cascade"]) })
		each(v["unexplained"], func(u map[string]any) { add(u["object"]) })
		each(v["stillGoing"], func(s map[string]any) { add(s["object"]) })
	default:
		t.Fatalf("a document of kind %v", v["kind"])
	}
	if len(out) == 0 {
		t.Fatal("the document names no object: the example checks nothing")
	}
	return out
}

// Every page of the examples loads with no console error and no network
// request, and its markup (not only the data its script reads) names every
// object of the command's answer.
func TestExamplePages(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	for _, e := range examples() {
		t.Run(e.name, func(t *testing.T) {
			path, _ := e.html(t, dir)
			b.open(t, path)
			shown := b.shownText(t)
			for _, o := range objectsOf(t, e.document(t)) {
				if !strings.Contains(shown, o) {
					t.Errorf("the page does not name %s", o)
				}
			}
		})
	}
}

// Clicking a mark of the post-mortem's timeline shows its request: the
// root request in full (audit ID, URI, user agent, DeleteOptions, code,
// the authorizer's reason), a step with what the chain records of it.
func TestTimelineMarkShowsRequest(t *testing.T) {
	b := newBrowser(t)
	e := examples()[0]
	path, _ := e.html(t, t.TempDir())
	b.open(t, path)
	var doc struct {
		Roots []struct {
			Request struct {
				AuditID, URI, UserAgent string
				Authorization           struct{ Reason string }
				DeleteOptions           struct{ Preconditions struct{ UID string } }
			}
			Cascade []struct {
				Steps []struct{ AuditID, What string }
			}
		}
	}
	if err := json.Unmarshal(e.document(t), &doc); err != nil || len(doc.Roots) == 0 {
		t.Fatalf("the example's document: %v, %d roots", err, len(doc.Roots))
	}
	q := doc.Roots[0].Request
	b.do(t, chromedp.Click(chromedp.CSS(".timeline .mark.root")))
	shown := eval[string](t, b, `document.getElementById("request-detail").textContent`)
	for _, want := range []string{q.AuditID, q.URI, q.UserAgent, "preconditions.uid=" + q.DeleteOptions.Preconditions.UID, "200", q.Authorization.Reason} {
		if want == "" || !strings.Contains(shown, want) {
			t.Errorf("the root's mark shows %q, not %q", shown, want)
		}
	}
	// The last step of the namespace's own link: the namespace
	// controller's finalize, the last request of the window, in a mark
	// with the controller's last deletecollections: the mark lists them,
	// and clicking the last shows it.
	steps := doc.Roots[0].Cascade[0].Steps
	last := steps[len(steps)-1]
	b.do(t, chromedp.Click(chromedp.CSS(".timeline .mark:last-of-type")))
	if eval[bool](t, b, `document.querySelector("#request-detail ul.many") !== null`) {
		b.do(t, chromedp.Click(chromedp.CSS("#request-detail li:last-of-type button")))
	}
	shown = eval[string](t, b, `document.getElementById("request-detail").textContent`)
	if !strings.Contains(shown, last.AuditID) || !strings.Contains(shown, last.What) {
		t.Errorf("the last mark shows %q, not the request %s (%s)", shown, last.AuditID, last.What)
	}
}

// The graph's search finds an object by name, points at it in the drawing,
// and the zoom buttons zoom.
func TestSearchFindsObject(t *testing.T) {
	b := newBrowser(t)
	e := example{"graph-shop", []string{"graph", "-n", "shop", "-f", "examples"}}
	path, _ := e.html(t, t.TempDir())
	b.open(t, path)
	var doc struct {
		Nodes []struct{ Kind, Name, UID string }
	}
	if err := json.Unmarshal(e.document(t), &doc); err != nil {
		t.Fatal(err)
	}
	uid := ""
	for _, n := range doc.Nodes {
		if n.Kind == "ConfigMap" && n.Name == "gizmo-settings" {
			uid = n.UID
		}
	}
	if uid == "" {
		t.Fatal("the example's graph has no ConfigMap gizmo-settings")
	}
	b.do(t, chromedp.SendKeys(chromedp.ID("search"), "gizmo-set"))
	if got := eval[string](t, b, `document.getElementById("search-count").textContent`); got != "1 object" {
		t.Errorf("searching gizmo-set counts %q, want 1 object", got)
	}
	if got := eval[string](t, b, `document.querySelector("#drawing .node.current").getAttribute("data-uid")`); got != uid {
		t.Errorf("the search points at %s, want gizmo-settings %s", got, uid)
	}
	before := eval[string](t, b, `document.querySelector("#drawing svg").getAttribute("viewBox")`)
	b.do(t, chromedp.Click(chromedp.ID("zoom-in")))
	after := eval[string](t, b, `document.querySelector("#drawing svg").getAttribute("viewBox")`)
	var w0, w1 float64
	if n, _ := fmtSscan(before, &w0); n != 1 {
		t.Fatalf("viewBox %q", before)
	}
	if n, _ := fmtSscan(after, &w1); n != 1 || w1 >= w0 {
		t.Errorf("zooming in changed the viewBox from %q to %q: not narrower", before, after)
	}
}

// readmeShots are the pages the README and docs show, and where their
// screenshots are kept.
var readmeShots = []string{"postmortem-team-a", "plan-rs-recreated", "why-stuck-legacy", "graph-shop"}

// The screenshots in docs/images are of the pages kgc writes today: each
// is kept with the SHA-256 of the page it was taken of, and the test
// fails when the page changed. go test ./test/browser -run
// TestScreenshots -update retakes those that changed (cd test/browser &&
// go test -run TestScreenshots . -update).
func TestScreenshots(t *testing.T) {
	dir := t.TempDir()
	var b *browser
	if *update {
		b = newBrowser(t)
	}
	for _, e := range examples() {
		if !slices.Contains(readmeShots, e.name) {
			continue
		}
		t.Run(e.name, func(t *testing.T) {
			_, page := e.html(t, dir)
			sum := sha256.Sum256(page)
			stamp := hex.EncodeToString(sum[:]) + "  " + e.name + ".html: kgc " + strings.Join(e.args, " ") + " -o html\n"
			png := filepath.Join(env.root, "docs", "images", "html-"+e.name+".png")
			old, _ := os.ReadFile(png + ".sha256")
			if string(old) == stamp {
				if data, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
					t.Errorf("%s is missing or not a PNG: %v", png, err)
				}
				return
			}
			if !*update {
				t.Fatalf("%s was not taken of the page kgc writes today: retake it with cd test/browser && go test -run TestScreenshots . -update", png)
			}
			path := filepath.Join(dir, e.name+".html")
			b.open(t, path)
			shot, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(png, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(png+".sha256", []byte(stamp), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// fmtSscan reads the width, the third number, of a viewBox.
func fmtSscan(viewBox string, w *float64) (int, error) {
	f := strings.Fields(viewBox)
	if len(f) != 4 {
		return 0, nil
	}
	return fmt.Sscan(f[2], w)
}

// The checks of TestExamplePages see what they look for: a page that
// fetches an image and throws is caught twice over.
func TestBrokenPageIsCaught(t *testing.T) {
	b := newBrowser(t)
	path := filepath.Join(t.TempDir(), "broken.html")
	page := `<!DOCTYPE html><html><body><main><img src="https://example.invalid/x.png"></main><footer></footer>` +
		`<script>null.boom;</script></body></html>`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	problems := strings.Join(b.load(t, path), "\n")
	for _, want := range []string{"asked the network for https://example.invalid/x.png", "boom"} {
		if !strings.Contains(problems, want) {
			t.Errorf("loading a broken page reported %q, nothing about %q", problems, want)
		}
	}
}

// The post-mortem's search finds the chains of an object and draws them
// unfolded, however many chains the page holds.
func TestChainSearchFindsAnObject(t *testing.T) {
	b := newBrowser(t)
	path, _ := examples()[0].html(t, t.TempDir())
	b.open(t, path)
	for _, c := range []struct{ query, count string }{{"web-settings", "1 chain"}, {"no-such-object", "0 chains"}} {
		search(t, b, c.query)
		if got := eval[string](t, b, `document.getElementById("chain-count").textContent`); got != c.count {
			t.Errorf("searching %s counts %q, want %q", c.query, got, c.count)
		}
	}
	search(t, b, "web-settings")
	if got := eval[string](t, b, `document.querySelector("#chains details.root[open]").textContent`); !strings.Contains(got, "ConfigMap/web-settings -n team-a") {
		t.Errorf("the chain found is not drawn with ConfigMap/web-settings: %q", got)
	}
}

// search types query into the post-mortem's search, as a person would,
// and presses Enter.
func search(t *testing.T, b *browser, query string) {
	t.Helper()
	eval[bool](t, b, `(document.getElementById("chain-search").value = "") === ""`)
	b.do(t, chromedp.SendKeys(chromedp.ID("chain-search"), query+"\r"))
}

package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browser is one headless chromium tab, and what it saw: console errors,
// uncaught exceptions and every network request.
type browser struct {
	ctx context.Context

	mu       sync.Mutex
	errors   []string
	requests []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	needBrowser(t)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions()...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	b := &browser{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.errors = append(b.errors, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.errors = append(b.errors, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber, msg))
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				b.errors = append(b.errors, fmt.Sprintf("%s %s: %s (%s)", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, ev.Request.URL)
		}
	})
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	for _, err := range []error{call(ctx, network.Enable, network.EnableParams{}), call(ctx, log.Enable, cdp.Empty{}), call(ctx, runtime.Enable, cdp.Empty{})} {
		if err != nil {
			t.Fatalf("starting chromium: %v", err)
		}
	}
	return b
}

// chromiumOptions start the browser headless, without the sandbox
// (which CI's root user cannot have), at the screenshots' size.
func chromiumOptions() []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(env.chromium), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
}

func call[P, R any](ctx context.Context, cmd cdp.Command[P, R], params P) error {
	_, err := chromedp.Call(ctx, cmd, params)
	return err
}

// open loads the page at path and waits until its script has run, then
// checks that the page logged no error and asked the network for nothing
// but itself.
func (b *browser) open(t *testing.T, path string) {
	t.Helper()
	for _, p := range b.load(t, path) {
		t.Errorf("%s: %s", path, p)
	}
}

// load loads the page at path and returns what is wrong with it: the
// errors it logged, the requests it made but for itself.
func (b *browser) load(t *testing.T, path string) []string {
	t.Helper()
	url := "file://" + path
	if err := chromedp.Do(b.ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	// Events of the load arrive asynchronously: a round trip through the
	// page orders them before what follows.
	if ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.readyState === "complete"`)); err != nil || !ok {
		t.Fatalf("%s did not finish loading: %v", path, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	problems := b.errors
	for _, r := range b.requests {
		if r != url {
			problems = append(problems, "asked the network for "+r+": a page must be self-contained")
		}
	}
	b.errors, b.requests = nil, nil
	return problems
}

// eval evaluates js in the page.
func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// do runs actions in the page.
func (b *browser) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// shownText is the text of the page's body as its markup holds it, the
// folded parts and the drawing's labels included, but not the data its
// script reads: a name only there is not shown.
func (b *browser) shownText(t *testing.T) string {
	t.Helper()
	return eval[string](t, b, `document.querySelector("main").textContent`)
}

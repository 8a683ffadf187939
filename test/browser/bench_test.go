package browser

import (
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchmarkPostmortemPage times opening the page KGC_BENCH_PAGE (written by
// test/bench's BenchmarkPostmortemHTML from the 1,000,000-event log) in
// headless Chromium: from navigation to the page parsed and its script
// run (the timeline drawn, the first chains unfolded), then to the first
// root's cascade drawn on demand. Each round opens it in a new tab.
func BenchmarkPostmortemPage(b *testing.B) {
	page := os.Getenv("KGC_BENCH_PAGE")
	if page == "" {
		b.Skip("KGC_BENCH_PAGE names no page: write one with test/bench's BenchmarkPostmortemHTML")
	}
	if env.chromium == "" {
		b.Skip(env.skip)
	}
	actx, cancel := chromedp.NewExecAllocator(b.Context(), chromiumOptions()...)
	defer cancel()
	browser, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(browser); err != nil {
		b.Fatal(err)
	}
	var worst time.Duration
	for b.Loop() {
		tab, cancelTab := chromedp.NewContext(browser)
		start := time.Now()
		err := chromedp.Do(tab, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("footer")),
			chromedp.WaitReady(chromedp.CSS("#timeline svg")), chromedp.WaitReady(chromedp.CSS("details.root .cascade ul")))
		d := time.Since(start)
		cancelTab()
		if err != nil {
			b.Fatal(err)
		}
		worst = max(worst, d)
	}
	b.ReportMetric(worst.Seconds(), "worst-load-s")
}

// Package browser tests the pages kgc writes with -o html in a real
// browser: Debian's chromium, driven by chromedp. It is a module of its
// own so that chromedp never becomes a dependency of kgc. The tests build
// kgc from this checkout, write the pages of the shipped examples, and
// check what a person would see: no console error, no network request, the
// objects of the answer named, a timeline mark that shows its request, a
// search that finds an object. Without chromium on PATH they skip, unless
// KGC_E2E_REQUIRED is set (as CI sets it): then they fail.
package browser

package framework

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// FaultKind is what a Fault does to the request it matches.
type FaultKind int

const (
	// ResetBefore drops the connection before the request is forwarded:
	// the API server never sees it.
	ResetBefore FaultKind = iota
	// ResetAfter forwards the request, waits for the API server's answer,
	// then drops the connection: the request took effect, its response is
	// lost.
	ResetAfter
	// Status answers Code (429, 500, 503, 410…) with a Status body and,
	// when set, Retry-After, without forwarding.
	Status
	// Delay holds the request for Delay before forwarding it (past the
	// client's timeout, the client gives up first).
	Delay
	// CloseWatch forwards a watch and ends its stream cleanly after
	// Delay, as an API server does when its watch times out.
	CloseWatch
	// WatchGone answers a watch with one ERROR event carrying 410 Gone
	// (its resourceVersion is too old), then ends the stream.
	WatchGone
)

// Match selects requests. Empty fields match everything; Nth selects the
// nth matching request only (1-based; 0: every one, up to Times).
type Match struct {
	Method string
	// Path is a substring of the URL path; Query a substring of the raw
	// query ("continue=" selects list pages after the first).
	Path  string
	Query string
	// Watch: "yes" only watches, "no" no watch, "" both.
	Watch string
	Nth   int
	// Times bounds how often the fault fires (0: unbounded).
	Times int
	// From selects the fromth matching request and every later one
	// (1-based; 0: from the first): "after the first page" is From 2.
	From int
}

// Fault is a programmed misbehaviour of the proxy.
type Fault struct {
	Match
	Kind       FaultKind
	Code       int
	RetryAfter string
	Delay      time.Duration

	seen, fired int
}

// FaultProxy is an HTTPS reverse proxy on loopback between kgc and the
// real kube-apiserver that injects faults and counts requests.
type FaultProxy struct {
	// URL is the proxy's https://127.0.0.1:PORT; Kubeconfig points at it
	// (insecure-skip-tls-verify: the proxy's certificate is self-signed)
	// with the admin token.
	URL        string
	Kubeconfig string

	srv   *httptest.Server
	rp    *httputil.ReverseProxy
	token string

	mu     sync.Mutex
	faults []*Fault
	counts map[string]int
	fired  map[string]int
	// answered counts the API server's answers by status code.
	answered map[int]int
}

// NewFaultProxy starts a proxy in front of cp's API server; it stops when
// the test ends.
func NewFaultProxy(t testing.TB, cp *ControlPlane) *FaultProxy {
	t.Helper()
	target, err := url.Parse(cp.APIServerURL)
	if err != nil {
		t.Fatalf("fault proxy: %v", err)
	}
	p := &FaultProxy{token: cp.Token, counts: map[string]int{}, fired: map[string]int{}}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
			if r.Out.Header.Get("Authorization") == "" {
				r.Out.Header.Set("Authorization", "Bearer "+p.token)
			}
		},
		Transport: &http.Transport{Proxy: nil, ForceAttemptHTTP2: false,
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // the harness's own loopback API server
		// Watches stream: pass every event on at once.
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			p.countAnswer(resp.StatusCode)
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			writeStatus(w, http.StatusBadGateway, "", "fault proxy: "+err.Error())
		},
	}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.srv.EnableHTTP2 = false // HTTP/1.1, so that connections can be dropped
	p.srv.StartTLS()
	t.Cleanup(p.srv.Close)
	p.URL = p.srv.URL
	p.Kubeconfig = filepath.Join(t.TempDir(), "kubeconfig-via-proxy")
	if err := writeKubeconfig(p.Kubeconfig, p.URL, cp.Token); err != nil {
		t.Fatalf("fault proxy: %v", err)
	}
	return p
}

// Inject adds faults; they apply in order, the first that fires wins.
func (p *FaultProxy) Inject(fs ...*Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = append(p.faults, fs...)
}

// Clear removes every fault; counts are kept.
func (p *FaultProxy) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = nil
}

// Counts is a copy of the request counts, keyed "METHOD /path" (watches
// as "WATCH /path").
func (p *FaultProxy) Counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.counts)
}

// Count is the number of requests with this method whose path contains
// path ("" for all paths). Method "WATCH" counts watches.
func (p *FaultProxy) Count(method, path string) int {
	n := 0
	for k, c := range p.Counts() {
		m, pp, _ := strings.Cut(k, " ")
		if (method == "" || m == method) && strings.Contains(pp, path) {
			n += c
		}
	}
	return n
}

// Fired is how many times faults fired, by kind name.
func (p *FaultProxy) Fired() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.fired {
		n += c
	}
	return n
}

// Summary lists the counts, sorted, for a test's log.
func (p *FaultProxy) Summary() string {
	c := p.Counts()
	var b strings.Builder
	total := 0
	for _, k := range slices.Sorted(maps.Keys(c)) {
		fmt.Fprintf(&b, "  %4d %s\n", c[k], k)
		total += c[k]
	}
	return fmt.Sprintf("%d request(s), %d fault(s) fired:\n%s", total, p.Fired(), b.String())
}

func isWatch(r *http.Request) bool {
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

func (m Match) matches(r *http.Request) bool {
	switch {
	case m.Method != "" && m.Method != r.Method:
		return false
	case m.Path != "" && !strings.Contains(r.URL.Path, m.Path):
		return false
	case m.Query != "" && !strings.Contains(r.URL.RawQuery, m.Query):
		return false
	case m.Watch == "yes" && !isWatch(r), m.Watch == "no" && isWatch(r):
		return false
	}
	return true
}

// pick counts r and returns the fault that fires on it, if any.
func (p *FaultProxy) pick(r *http.Request) *Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	method := r.Method
	if isWatch(r) {
		method = "WATCH"
	}
	p.counts[method+" "+r.URL.Path]++
	for _, f := range p.faults {
		if !f.matches(r) {
			continue
		}
		f.seen++
		if f.Nth != 0 && f.seen != f.Nth || f.Times != 0 && f.fired >= f.Times || f.seen < f.From {
			continue
		}
		f.fired++
		p.fired[fmt.Sprint(f.Kind)]++
		return f
	}
	return nil
}

func (p *FaultProxy) serve(w http.ResponseWriter, r *http.Request) {
	f := p.pick(r)
	if f == nil {
		p.rp.ServeHTTP(w, r)
		return
	}
	switch f.Kind {
	case ResetBefore:
		drop(w)
	case ResetAfter:
		rec := httptest.NewRecorder()
		p.rp.ServeHTTP(rec, r)
		drop(w)
	case Status:
		writeStatus(w, f.Code, f.RetryAfter, "fault proxy: injected "+http.StatusText(f.Code))
	case Delay:
		select {
		case <-r.Context().Done():
			return
		case <-time.After(f.Delay):
		}
		p.rp.ServeHTTP(w, r)
	case CloseWatch:
		ctx, cancel := context.WithTimeout(r.Context(), f.Delay)
		defer cancel()
		p.rp.ServeHTTP(w, r.WithContext(ctx))
	case WatchGone:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",`+
			`"message":"fault proxy: too old resource version","reason":"Expired","code":410}}`+"\n")
	}
}

// drop closes the client's connection without an answer; with linger 0
// the client sees a reset.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := underlyingTCP(conn); ok {
		_ = tc.SetLinger(0)
	}
	conn.Close()
}

func underlyingTCP(c net.Conn) (*net.TCPConn, bool) {
	if tlsConn, ok := c.(*tls.Conn); ok {
		c = tlsConn.NetConn()
	}
	tc, ok := c.(*net.TCPConn)
	return tc, ok
}

func writeStatus(w http.ResponseWriter, code int, retryAfter, msg string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	reason := map[int]string{429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable", 410: "Expired", 504: "Timeout"}[code]
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
}

// RunKGCVia runs kgc as RunKGC does, but through the proxy.
func (e *Env) RunKGCVia(t testing.TB, p *FaultProxy, args ...string) KGCResult {
	t.Helper()
	return e.StartKGCVia(t, p, args...).Wait(t)
}

// StartKGCVia starts kgc as StartKGC does, but through the proxy.
func (e *Env) StartKGCVia(t testing.TB, p *FaultProxy, args ...string) *RunningKGC {
	t.Helper()
	return e.startKGC(t, p.Kubeconfig, args...)
}

// Package gen writes a realistic kube-apiserver audit log
// (--audit-log-format=json, audit.k8s.io/v1, one event per line, keys in
// the apiserver's order) for benchmarks and tests: a cluster of a few
// hundred namespaces whose traffic is mostly reads, lease renewals and
// status updates, with some thousands of deletion cascades in it (a
// user's DELETE, the garbage collector's, the namespace controller's and
// the kubelets' DELETEs, orphaning PATCHes). Secret bodies are logged at
// RequestResponse level, as a careless policy would, so that the log
// holds secrets a reader must not keep. The output is a function of the
// seed.
package gen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Options say what to write.
type Options struct {
	Events int    // lines to write
	Seed   uint64 // the same seed writes the same log
	// Start is the first event's time (default 2026-11-27T10:00:00Z).
	Start time.Time
	// WriteHeavy writes a busy cluster's RequestResponse log instead of
	// the mostly-read one: about half the events are creates, updates
	// and patches with request and response bodies, most of them writes
	// a post-mortem keeps (Pods, Deployments, ReplicaSets, Secrets,
	// ConfigMaps).
	WriteHeavy bool
}

// Stats count what was written.
type Stats struct {
	Events, Cascades, Deletes, Writes int
	Bytes                             int64
}

// SecretValue is in every Secret body the generator writes: a reader
// that keeps bodies leaks it.
const SecretValue = "c3VwZXItc2VjcmV0LXBhc3N3b3Jk"

// Token is in every TokenRequest response.
const Token = "eyJhbGciOiJSUzI1NiJ9.generated-token-value"

// Write writes opts.Events audit events to w.
func Write(w io.Writer, opts Options) (Stats, error) {
	if opts.Start.IsZero() {
		opts.Start = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &generator{
		rnd:  rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		now:  opts.Start,
		out:  bw,
		left: opts.Events,
		mix:  readMostly,
	}
	if opts.WriteHeavy {
		g.mix = writeHeavy
	}
	g.cluster()
	for g.left > 0 && g.err == nil {
		g.next()
	}
	if g.err == nil {
		g.err = bw.Flush()
	}
	return g.stats, g.err
}

type generator struct {
	rnd   *rand.Rand
	now   time.Time
	out   *bufio.Writer
	left  int
	seq   uint64
	ns    []*namespace
	nodes []string
	stats Stats
	err   error
	line  []byte
	mix   []weighted
}

func (g *generator) cluster() {
	for i := range 300 {
		g.ns = append(g.ns, g.newNamespace(fmt.Sprintf("team-%04d", i)))
	}
	for i := range 50 {
		g.nodes = append(g.nodes, fmt.Sprintf("node-%03d", i))
	}
}

// weighted is a kind of traffic and how often it comes, per thousand.
type weighted struct {
	per  int
	emit func(*generator)
}

// readMostly is a cluster's everyday mix: mostly reads, lease renewals
// and status updates.
var readMostly = []weighted{
	{300, (*generator).get}, {130, (*generator).list}, {130, (*generator).watch},
	{160, (*generator).leaseUpdate}, {130, (*generator).statusUpdate}, {50, (*generator).secretUpdate},
	{30, (*generator).configMapPatch}, {30, (*generator).podCreate}, {10, (*generator).tokenRequest},
	{15, (*generator).eventCreate}, {15, (*generator).cascade},
}

// writeHeavy is a busy cluster's: about half the events are writes with
// bodies, most of them of objects a chain may reach.
var writeHeavy = []weighted{
	{205, (*generator).get}, {100, (*generator).list}, {100, (*generator).watch},
	{60, (*generator).leaseUpdate}, {90, (*generator).statusUpdate}, {60, (*generator).secretUpdate},
	{60, (*generator).configMapPatch}, {80, (*generator).podCreate}, {90, (*generator).deploymentUpdate},
	{70, (*generator).podPatch}, {40, (*generator).replicaSetUpdate}, {10, (*generator).tokenRequest},
	{20, (*generator).eventCreate}, {15, (*generator).cascade},
}

// next writes one kind of traffic, chosen by weight.
func (g *generator) next() {
	r := g.rnd.IntN(1000)
	for _, w := range g.mix {
		if r < w.per {
			w.emit(g)
			return
		}
		r -= w.per
	}
}

// tick advances the clock by a few milliseconds.
func (g *generator) tick() { g.now = g.now.Add(time.Duration(1+g.rnd.IntN(4000)) * time.Microsecond) }

func (g *generator) auditID() string {
	g.seq++
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(g.seq*2654435761), uint16(g.seq>>3), g.seq&0xfff, (g.seq>>7)&0xfff, g.seq*40503)
}

func (g *generator) uid() string {
	a, b := g.rnd.Uint64(), g.rnd.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", uint32(a), uint16(a>>32), (a>>48)&0xfff, b&0xfff, b>>16&0xffffffffffff)
}

func (g *generator) pickNS() *namespace { return g.ns[g.rnd.IntN(len(g.ns))] }

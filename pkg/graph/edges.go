package graph

import (
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/internal/permute"
	"github.com/kgc-dev/kgc/internal/radix"
)

// Edge is a dependent → owner reference of the graph.
type Edge struct {
	From               string `json:"from"`
	To                 string `json:"to"`
	BlockOwnerDeletion bool   `json:"blockOwnerDeletion"`
	Controller         bool   `json:"controller"`
}

// Edges returns the edges of the nodes given, each once (their owner references), one
// per (from, to), sorted by (from, to). Two references from one object to
// the same UID make one edge whose flags are either's.
func Edges(nodes []*Node) []Edge {
	refs := 0
	for _, n := range nodes {
		refs += len(n.Owners)
	}
	out := make([]Edge, 0, refs) // sized once: a cluster has a million
	for _, n := range nodes {
		// A node is listed once, so two edges can share (from, to) only
		// when they are two references of one node: look among its own.
		first := len(out)
	refs:
		for _, r := range n.Owners {
			for i := first; i < len(out); i++ {
				if out[i].To == r.UID {
					out[i].BlockOwnerDeletion = out[i].BlockOwnerDeletion || r.Blocking()
					out[i].Controller = out[i].Controller || r.IsController()
					continue refs
				}
			}
			out = append(out, Edge{From: n.UID(), To: r.UID, BlockOwnerDeletion: r.Blocking(), Controller: r.IsController()})
		}
	}
	sortEdges(out)
	return out
}

// sortEdges sorts edges by (from, to). A million string comparisons cost
// more than the rest of listing the edges, so the edges are first radix
// sorted by their from's first eight bytes as an integer, which orders as
// the strings do wherever the integers differ; only runs of equal ones (a
// dependent's several owners) compare the strings.
func sortEdges(edges []Edge) {
	type key struct {
		prefix uint64
		i      int32
	}
	keys := make([]key, len(edges))
	for i, e := range edges {
		keys[i] = key{prefix: prefix8(e.From), i: int32(i)}
	}
	keys, _ = radix.Sort(keys, nil, func(k key) uint64 { return k.prefix })
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi].prefix == keys[lo].prefix {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(keys[lo:hi], func(a, b key) int {
				x, y := &edges[a.i], &edges[b.i]
				if c := strings.Compare(x.From, y.From); c != 0 {
					return c
				}
				return strings.Compare(x.To, y.To)
			})
		}
		lo = hi
	}
	idx := make([]int32, len(keys))
	for k, e := range keys {
		idx[k] = e.i
	}
	permute.Apply(edges, idx)
}

// prefix8 is s's first eight bytes, big-endian, zero-padded: a < b as
// strings implies prefix8(a) <= prefix8(b).
func prefix8(s string) uint64 {
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(s) {
			p |= uint64(s[i])
		}
	}
	return p
}

// Edges returns every edge of the graph, sorted by (from, to).
func (g *Graph) Edges() []Edge { return Edges(g.Nodes()) }

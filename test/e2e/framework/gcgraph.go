package framework

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// GCNode is one vertex of the garbage collector's debug graph.
type GCNode struct {
	UID                string
	Group, Version     string
	Kind               string
	Namespace          string
	Name               string
	Virtual            bool
	BeingDeleted       bool
	DeletingDependents bool
	// Missing marks a vertex dump.go invented for an owner absent from the
	// graph it dumped (NewMissingdotVertex); it has no namespace or flags.
	Missing bool
}

// GCEdge is a dependent → owner edge of the debug graph.
type GCEdge struct{ From, To string }

// GCGraph is a parsed DOT document from the GC's debug handler.
type GCGraph struct {
	// Nodes by UID. A UID can appear twice in the DOT (dump.go's missing
	// vertex quirk); the observed (non-missing) vertex wins.
	Nodes map[string]GCNode
	Edges []GCEdge
	Raw   string
}

// FetchGCGraph gets the garbage collector's graph, limited to the connected
// components of uids when any are given (the handler's ?uid= parameter).
func (e *Env) FetchGCGraph(ctx context.Context, uids ...string) (*GCGraph, error) {
	u := e.CP.ControllerManagerURL + GCGraphPath
	if len(uids) > 0 {
		q := url.Values{}
		for _, id := range uids {
			q.Add("uid", id)
		}
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("building GC graph request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+e.CP.Token)
	resp, err := insecureClient(30 * time.Second).Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching GC graph: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading GC graph: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GC graph: HTTP %d: %s", resp.StatusCode, body)
	}
	return ParseGCDOT(body)
}

// ParseGCDOT parses the DOT that pkg/controller/garbagecollector/dump.go
// writes: one `"uid" [` line, then `key="value"` lines, then `];` per vertex,
// and `"from" -> "to";` per edge. kgc's `graph -o dot` promises the same
// shape plus styling, which is skipped.
func ParseGCDOT(data []byte) (*GCGraph, error) {
	g := &GCGraph{Nodes: map[string]GCNode{}, Raw: string(data)}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var cur map[string]string
	lineNo, legend := 0, 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "subgraph ") || legend > 0 {
			// kgc's legend of the hazards it draws: not part of the graph.
			legend += strings.Count(line, "{") - strings.Count(line, "}")
			continue
		}
		switch {
		case line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "strict digraph") || line == "}":
		case cur != nil && line == "];":
			n := GCNode{
				UID: cur["uid"], Group: cur["group"], Version: cur["version"], Kind: cur["kind"],
				Namespace: cur["namespace"], Name: cur["name"],
				Virtual: cur["virtual"] == "true", BeingDeleted: cur["beingDeleted"] == "true",
				DeletingDependents: cur["deletingDependents"] == "true", Missing: cur["missing"] == "true",
			}
			if old, ok := g.Nodes[n.UID]; !ok || old.Missing {
				g.Nodes[n.UID] = n
			}
			cur = nil
		case cur != nil:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				return nil, fmt.Errorf("GC DOT line %d: expected key=value, got %q", lineNo, line)
			}
			uv, err := strconv.Unquote(v)
			if err != nil {
				return nil, fmt.Errorf("GC DOT line %d: unquoting %q: %w", lineNo, v, err)
			}
			cur[k] = uv
		case strings.HasSuffix(line, "["):
			cur = map[string]string{}
		case strings.HasPrefix(line, "graph [") || strings.HasPrefix(line, "node [") || strings.HasPrefix(line, "edge ["):
			// Default styling statements (kgc's -o dot has them; the GC's
			// DOT does not).
		case strings.Contains(line, "->"):
			edge := strings.TrimSuffix(line, ";")
			if i := strings.Index(edge, " ["); i >= 0 {
				edge = edge[:i] // per-edge styling
			}
			from, to, _ := strings.Cut(edge, "->")
			f, err1 := strconv.Unquote(strings.TrimSpace(from))
			tt, err2 := strconv.Unquote(strings.TrimSpace(to))
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("GC DOT line %d: bad edge %q", lineNo, line)
			}
			g.Edges = append(g.Edges, GCEdge{From: f, To: tt})
		default:
			return nil, fmt.Errorf("GC DOT line %d: unexpected %q", lineNo, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("scanning GC DOT: %w", err)
	}
	sort.Slice(g.Edges, func(i, j int) bool {
		if g.Edges[i].From != g.Edges[j].From {
			return g.Edges[i].From < g.Edges[j].From
		}
		return g.Edges[i].To < g.Edges[j].To
	})
	return g, nil
}

// Component returns the UIDs connected (in either direction) to any of the
// seeds, the way the handler's ?uid= selects them.
func (g *GCGraph) Component(seeds ...string) map[string]bool {
	adj := map[string][]string{}
	for _, e := range g.Edges {
		adj[e.From] = append(adj[e.From], e.To)
		adj[e.To] = append(adj[e.To], e.From)
	}
	seen := map[string]bool{}
	stack := append([]string(nil), seeds...)
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[u] {
			continue
		}
		seen[u] = true
		stack = append(stack, adj[u]...)
	}
	return seen
}

// AsGraph converts a parsed DOT into kgc's Graph document shape, so a DOT
// rendering can be checked like the JSON one. Missing vertices are virtual.
func (g *GCGraph) AsGraph() *Graph {
	out := &Graph{Kind: "Graph"}
	uids := make([]string, 0, len(g.Nodes))
	for uid := range g.Nodes {
		uids = append(uids, uid)
	}
	sort.Strings(uids)
	for _, uid := range uids {
		n := g.Nodes[uid]
		apiVersion := n.Version
		if n.Group != "" {
			apiVersion = n.Group + "/" + n.Version
		}
		out.Nodes = append(out.Nodes, GraphNode{
			ObjectRef:    ObjectRef{APIVersion: apiVersion, Kind: n.Kind, Namespace: n.Namespace, Name: n.Name, UID: uid},
			Virtual:      n.Virtual || n.Missing,
			BeingDeleted: n.BeingDeleted, DeletingDependents: n.DeletingDependents,
		})
	}
	for _, e := range g.Edges {
		out.Edges = append(out.Edges, GraphEdge{From: e.From, To: e.To})
	}
	return out
}

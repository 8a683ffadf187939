package framework

import (
	"strings"
	"testing"
)

// A DOT document as dump.go writes it, including a missing vertex (an owner
// absent from the dumped graph) and the dependent it belongs to.
const sampleDOT = `strict digraph full {
  // Node definitions.
  "0001" [
    label="uid=0001\nnamespace=ns\nSecret.v1/held\nbeingDeleted\n"
    group=""
    version="v1"
    kind="Secret"
    namespace="ns"
    name="held"
    uid="0001"
    missing="false"
    beingDeleted="true"
    deletingDependents="false"
    virtual="false"
  ];
  "0002" [
    label="uid=0002\nnamespace=\nConfigMap.v1/ghost\nmissingFromGraph\n"
    group=""
    version="v1"
    kind="ConfigMap"
    namespace=""
    name="ghost"
    uid="0002"
    missing="true"
    beingDeleted="false"
    deletingDependents="false"
    virtual="false"
  ];
  "0003" [
    label="uid=0003\nnamespace=ns\nWidget.v1.e2e.kgc.dev/w\n"
    group="e2e.kgc.dev"
    version="v1"
    kind="Widget"
    namespace="ns"
    name="w"
    uid="0003"
    missing="false"
    beingDeleted="false"
    deletingDependents="false"
    virtual="false"
  ];
  // Edge definitions.
  "0001" -> "0002";
  "0003" -> "0001" [style="bold"];
}
`

func TestParseGCDOT(t *testing.T) {
	g, err := ParseGCDOT([]byte(sampleDOT))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 3 || len(g.Edges) != 2 {
		t.Fatalf("got %d nodes, %d edges; want 3, 2", len(g.Nodes), len(g.Edges))
	}
	held := g.Nodes["0001"]
	if !held.BeingDeleted || held.Missing || held.Namespace != "ns" || held.Kind != "Secret" {
		t.Errorf("held: %+v", held)
	}
	if !g.Nodes["0002"].Missing {
		t.Errorf("ghost should be a missing vertex: %+v", g.Nodes["0002"])
	}
	if g.Edges[0] != (GCEdge{From: "0001", To: "0002"}) || g.Edges[1] != (GCEdge{From: "0003", To: "0001"}) {
		t.Errorf("edges: %+v", g.Edges)
	}
	if c := g.Component("0003"); len(c) != 3 {
		t.Errorf("component of 0003: %v", c)
	}
	kg := g.AsGraph()
	if kg.Nodes[1].UID != "0002" || !kg.Nodes[1].Virtual || kg.Nodes[2].APIVersion != "e2e.kgc.dev/v1" {
		t.Errorf("AsGraph: %+v", kg.Nodes)
	}
}

func TestParseGCDOTRejectsGarbage(t *testing.T) {
	if _, err := ParseGCDOT([]byte("strict digraph full {\n  what is this\n}\n")); err == nil {
		t.Error("want an error for an unexpected line")
	}
}

// kgc's own DOT draws the hazards it finds and a legend of them: the legend
// is not part of the graph, and hazard styling is per-edge styling.
func TestParseGCDOTSkipsKGCLegend(t *testing.T) {
	withLegend := strings.Replace(sampleDOT, `  "0003" -> "0001" [style="bold"];
}`, `  "0003" -> "0001" [style="dashed", penwidth="2", color="#c0392b", label="dangling-owner", hazards="dangling-owner", tooltip="dangling-owner: it does not exist"];
  // Legend: the hazards drawn.
  subgraph "cluster_legend" {
    label="Hazards"; fontname="Helvetica"; fontsize="10"; style="dashed"; color="gray60";
    { rank="same"; "legend-dangling-owner-from" [label="", shape="point"]; "legend-dangling-owner" [label="dangling-owner: gone", shape="plaintext"]; }
    "legend-dangling-owner-from" -> "legend-dangling-owner" [style="dashed"];
    "legend-stuck-finalizer" [label="stuck-finalizer: held", shape="box"];
    "legend-stuck-finalizer" -> "legend-dangling-owner-from" [style="invis"];
  }
}`, 1)
	g, err := ParseGCDOT([]byte(withLegend))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 3 || len(g.Edges) != 2 {
		t.Fatalf("got %d nodes, %d edges; want 3, 2 (the legend is not the graph): %+v", len(g.Nodes), len(g.Edges), g.Edges)
	}
}

package snapshotio

import (
	"bytes"
	"os"
	"testing"
)

// TestSpecRefsKeepOnlyTheReference: a Cluster API Cluster with finalizers
// keeps its spec.infrastructureRef and spec.controlPlaneRef (kind, name,
// namespace, apiVersion) and nothing else of its spec; an object without
// finalizers keeps none.
func TestSpecRefsKeepOnlyTheReference(t *testing.T) {
	dir := t.TempDir()
	doc := `{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"Cluster","metadata":{"name":"prod","namespace":"fleet","uid":"c1","finalizers":["cluster.cluster.x-k8s.io"]},
 "spec":{"clusterNetwork":{"pods":{"cidrBlocks":["10.0.0.0/8"]}},"secretRef":"not-an-object","nullRef":null,
  "infrastructureRef":{"apiVersion":"infrastructure.cluster.x-k8s.io/v1beta1","kind":"OpenStackCluster","name":"prod","namespace":"fleet","uid":"u","resourceVersion":"7"},
  "controlPlaneRef":{"apiVersion":"controlplane.cluster.x-k8s.io/v1beta1","kind":"KubeadmControlPlane","name":"prod-cp","namespace":"fleet"}}},
{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"Cluster","metadata":{"name":"idle","namespace":"fleet","uid":"c2"},
 "spec":{"infrastructureRef":{"kind":"OpenStackCluster","name":"idle"}}}]}`
	if err := os.WriteFile(dir+"/c.json", []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ReadFiles([]string{dir + "/c.json"}, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, s); err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"10.0.0.0", "not-an-object", "resourceVersion\":\"7"} {
		if bytes.Contains(out.Bytes(), []byte(leak)) {
			t.Errorf("snapshot keeps %q of the spec", leak)
		}
	}
	for _, o := range s.Objects {
		switch o.Metadata.Name {
		case "prod":
			if o.Facts == nil || len(o.Facts.Refs) != 2 {
				t.Fatalf("refs = %+v", o.Facts)
			}
			r := o.Facts.Refs[0]
			if r.Field != "spec.infrastructureRef" || r.Kind != "OpenStackCluster" || r.Name != "prod" || r.Namespace != "fleet" || r.APIVersion != "infrastructure.cluster.x-k8s.io/v1beta1" {
				t.Errorf("ref 0 = %+v", r)
			}
			if o.Facts.Refs[1].Field != "spec.controlPlaneRef" || o.Facts.Refs[1].Kind != "KubeadmControlPlane" {
				t.Errorf("ref 1 = %+v", o.Facts.Refs[1])
			}
		case "idle":
			if o.Facts != nil {
				t.Errorf("an object without finalizers keeps facts %+v", o.Facts)
			}
		}
	}
}

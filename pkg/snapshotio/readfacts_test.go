package snapshotio

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// The scanner's path for the common facts must give what encoding/json
// gives, and leave every other shape to it.
func TestCommonFactsAgreeWithEncodingJSON(t *testing.T) {
	// The first eleven are the shapes kgc writes: the scanner must read them.
	const common = 11
	for i, raw := range []string{
		`{"pod":{"nodeName":"node-1","phase":"Running","terminationGracePeriodSeconds":30}}`,
		`{"pod":{"nodeName":"n","claims":["data-db-0","x"],"ephemeralClaims":["p-v"],"mirror":true}}`,
		`{"pod":{"mirror":false}}`,
		`{"pod":{}}`,
		`{"service":{"type":"LoadBalancer","loadBalancerClass":"example.com/lb"}}`,
		`{"service":{"type":"ClusterIP"}}`,
		`{"service":{"selector":true,"type":"ClusterIP"}}`,
		`{"workload":{"replicas":3,"selectorMatchesTemplate":true}}`,
		`{"workload":{"replicas":0,"paused":true,"revision":"7"}}`,
		`{"workload":{"suspend":true,"nodeAffinity":false}}`,
		`{"workload":{"replicas":2,"ordinalsStart":5,"selectorMatchesTemplate":false}}`,
		`{"workload":{"replicas":4294967296}}`,
		`{"workload":{"nodeSelector":{"disk":"ssd"},"tolerations":["a:NoSchedule"]}}`,
		`{"workload":{"replicas":null}}`,
		`{"pod":{"claims":[]}}`,
		`{"pod":{"nodeName":null}}`,
		`{"pod":null}`,
		`{"pod":{"NodeName":"n"}}`,
		`{"pod":{"nodeName":"n","newField":1}}`,
		`{"namespace":{"phase":"Terminating"}}`,
		`{"pod":{"phase":"Running"},"service":{"type":"ClusterIP"}}`,
		`{"pod":{"nodeName":"caf\u00e9"}}`,
		` {"pod" : {"phase" : "Pending"} } `,
	} {
		var want snapshot.Facts
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			if _, ok := NewExtractor().commonFacts([]byte(raw)); ok {
				t.Errorf("%s: the scanner reads what encoding/json refuses (%v)", raw, err)
			}
			continue
		}
		got, ok := NewExtractor().commonFacts([]byte(raw))
		if i < common && !ok {
			t.Errorf("%s: left to encoding/json", raw)
		}
		if ok && !reflect.DeepEqual(*got, want) {
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			t.Errorf("%s: scanner read %s, encoding/json %s", raw, gj, wj)
		}
	}
}

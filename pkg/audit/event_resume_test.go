package audit

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// parseStage reads a kept line whole, as parseKept does with no head.
func parseStage(l []byte, in *interner) (stage, error) {
	return parseKept(l, nil, in)
}

// apiserverLine is an event as the kube-apiserver writes it, its keys in
// its order; rest is spliced in after objectRef.
func apiserverLine(verb, ref, rest string) string {
	return eventPrefix + `"level":"RequestResponse","auditID":"a-1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns/pods/p",` +
		`"verb":"` + verb + `","user":{"username":"alice","groups":["system:authenticated"]},"sourceIPs":["10.0.0.1"],"userAgent":"kubectl/v1.36.3",` +
		`"objectRef":` + ref + rest + `}`
}

// resumeCases are kept lines of every shape the prefilter walks: the
// kube-apiserver's order, sorted keys, no prefix, repeated keys, more
// members before the verdict than the prefilter notes, and values broken
// before and after the verdict.
func resumeCases() []string {
	ref := `{"resource":"pods","namespace":"ns","name":"p","uid":"u-1","apiVersion":"v1"}`
	tail := `,"responseStatus":{"metadata":{},"code":200},"responseObject":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","uid":"u-1","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r","uid":"u-r","controller":true}]}},` +
		`"requestReceivedTimestamp":"2026-11-27T10:00:00.000000Z","stageTimestamp":"2026-11-27T10:00:00.000100Z","annotations":{"a":"b"}`
	many := strings.Builder{}
	for i := range maxPassed + 2 {
		fmt.Fprintf(&many, `"x%d":%d,`, i, i)
	}
	out := append([]string{}, formEvents()...)
	out = append(out,
		apiserverLine("delete", ref, tail),
		apiserverLine("patch", ref, tail),
		apiserverLine("create", ref, `,"stageTimestamp":"2026-11-27T10:00:00Z"`),
		strings.Replace(apiserverLine("delete", ref, tail), `"level":"RequestResponse"`, `"level":5`, 1),
		strings.Replace(apiserverLine("delete", ref, tail), `"stage":"ResponseComplete"`, `"stage":"ResponseComplete","stage":"Panic"`, 1),
		strings.Replace(apiserverLine("delete", ref, tail), `"user":{"username":"alice"`, `"user":{"username":7`, 1),
		strings.Replace(apiserverLine("delete", ref, tail), `"code":200}`, `"code":"x"}`, 1),
		strings.Replace(apiserverLine("delete", ref, tail), `"annotations":{"a":"b"}`, `"annotations":{"a":"b"`, 1),
		strings.Replace(apiserverLine("delete", ref, tail), `"kind":"Event"`, `"kind":"Event","verb":"get"`, 1),
		`{"apiVersion":"audit.k8s.io/v1beta1","kind":"Event","verb":"delete","objectRef":`+ref+`,"timestamp":"2017-11-27T10:00:00Z"}`,
		`{"kind":"Event",`+many.String()+`"auditID":"late","verb":"delete","objectRef":`+ref+tail+`}`,
		`{"kind":"Pod","verb":"delete","objectRef":`+ref+`}`,
	)
	return out
}

// keptIsWhole checks that a line the prefilter keeps reads the same from
// its head as read whole: the same stage, or the same error.
func keptIsWhole(t *testing.T, l []byte) {
	t.Helper()
	var h head
	v, err := prefilter(l, &h)
	if err != nil || v != keep {
		return
	}
	var in1, in2 interner
	whole, errWhole := parseStage(l, &in1)
	kept, errKept := parseKept(l, &h, &in2)
	if fmt.Sprint(errWhole) != fmt.Sprint(errKept) {
		t.Fatalf("%s: read whole: %v; read on from the prefilter: %v", l, errWhole, errKept)
	}
	if errWhole == nil && !reflect.DeepEqual(whole, kept) {
		t.Fatalf("%s: read whole as\n%+v\nread on from the prefilter as\n%+v", l, whole.ev, kept.ev)
	}
}

// TestKeptLineReadsAsWhole: a kept line read on from where the prefilter
// stopped is the stage, or the error, of reading it whole.
func TestKeptLineReadsAsWhole(t *testing.T) {
	for _, l := range resumeCases() {
		keptIsWhole(t, []byte(l))
	}
}

// TestKeptLineNotWalkedAgain: the kube-apiserver's line is read on from
// the prefilter's verdict, not walked from its start a second time: a
// line whose start is spoiled once the prefilter has read it still
// reads. (A walk from the start would refuse it.)
func TestKeptLineNotWalkedAgain(t *testing.T) {
	l := []byte(apiserverLine("delete", `{"resource":"pods","namespace":"ns","name":"p","apiVersion":"v1"}`, `,"stageTimestamp":"2026-11-27T10:00:00Z"`))
	var h head
	v, err := prefilter(l, &h)
	if err != nil || v != keep {
		t.Fatalf("prefilter: %v, %v", v, err)
	}
	l[0] = 'x'
	st, err := parseKept(l, &h, &interner{})
	if err != nil {
		t.Fatalf("the line was walked again from its start: %v", err)
	}
	if st.ev.Verb != "delete" || st.ev.User.Username != "alice" || st.ev.AuditID != "a-1" {
		t.Errorf("read %+v", st.ev)
	}
	if _, err := parseStage(l, &interner{}); err == nil {
		t.Errorf("the spoiled line reads whole: the test proves nothing")
	}
}

// FuzzKeptLineReadsAsWhole: any kept line reads the same either way.
func FuzzKeptLineReadsAsWhole(f *testing.F) {
	for _, l := range resumeCases() {
		f.Add([]byte(l))
	}
	f.Fuzz(keptIsWhole)
}

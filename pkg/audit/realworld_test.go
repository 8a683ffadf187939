package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realWorld is the folder of audit files written by others (each with a
// SOURCE.md saying where from), beside the repository's checkout; tests
// that read it skip when it is not there.
func realWorld(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "postmortem-realworld")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(dir) == dir {
			t.Skip("no shared/postmortem-realworld above " + wd + ": the real-world audit files are not here")
		}
	}
}

// TestRealWorldFiles: every audit file others wrote is read in the form
// it is in, with every event counted and none bad.
func TestRealWorldFiles(t *testing.T) {
	root := realWorld(t)
	gkeLoss := "keep no user groups, no impersonated user, no stages, no HTTP status codes and no receive times"
	for _, c := range []struct {
		file, format string
		events       int
		loss         string // a part of the file's losses, if any
	}{
		{"audit2rbac-impersonation/demo.log", "native", 37, ""},
		{"elastic-integrations-pipeline/test-audit.log", "aks-diagnostics+gke-logentry+native", 5, "kube-audit-admin"},
		{"elastic-integrations-pipeline/test-kube-audit.log", "aks-diagnostics", 1, ""},
		{"elastic-integrations-pipeline/sample_event.json", "elastic-ecs", 1, ""},
		{"falco-trace-deletes/delete_cluster_role_kube_aggregator.json", "native", 1, ""},
		{"falco-trace-deletes/delete_clusterrole.json", "native", 1, ""},
		{"falco-trace-deletes/delete_clusterrolebinding.json", "native", 1, ""},
		{"falco-trace-deletes/delete_configmap.json", "native", 1, ""},
		{"falco-trace-deletes/delete_deployment.json", "native", 1, ""},
		{"falco-trace-deletes/delete_namespace_foo.json", "native", 1, ""},
		{"falco-trace-deletes/delete_secret.json", "native", 1, ""},
		{"falco-trace-deletes/delete_service.json", "native", 1, ""},
		{"falco-trace-deletes/delete_serviceaccount.json", "native", 1, ""},
		{"khi-gke-logentry-yaml/container_recorder_test_1_1.yaml", "gke-logentry", 1, gkeLoss},
		{"khi-gke-logentry-yaml/container_recorder_test_1_2.yaml", "gke-logentry", 1, gkeLoss},
		{"khi-gke-logentry-yaml/container_recorder_test_1_3.yaml", "gke-logentry", 1, gkeLoss},
		{"khi-gke-logentry-yaml/oss-test-log.yaml", "native-yaml", 1, ""},
		{"sysdig-aks-eventhub/event.json", "aks-diagnostics", 22, ""},
		{"sysdig-aks-eventhub/sample_EventHubs_event.json", "aks-diagnostics", 1, ""},
		{"sysdig-aks-eventhub/sample_KubeAuditLog_event.json", "native", 1, ""},
	} {
		t.Run(c.file, func(t *testing.T) {
			l, err := Read([]string{filepath.Join(root, c.file)}, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := l.Files[0]
			if f.Format != c.format || f.Events != c.events || f.Bad != 0 {
				t.Errorf("read as %q, %d events, %d bad; want %q, %d events, none bad", f.Format, f.Events, f.Bad, c.format, c.events)
			}
			if got := strings.Join(f.Losses, "\n"); !strings.Contains(got, c.loss) || (c.loss == "" && got != "") {
				t.Errorf("losses %q, want them to say %q", got, c.loss)
			}
			for _, w := range l.Warnings {
				if w.Position.Line > 0 {
					t.Errorf("warning at line %d: %s", w.Position.Line, w.Message)
				}
			}
		})
	}
}

// TestRealWorldMalformed: Falco's malformed fixture is a clear error.
func TestRealWorldMalformed(t *testing.T) {
	p := filepath.Join(realWorld(t), "falco-trace-deletes", "fal_01_003.json")
	_, err := Read([]string{p}, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), p+" is not an audit log (line 1: not an audit event: its kind is not a string)") {
		t.Errorf("error %v", err)
	}
}

// TestRealWorldFolders: each folder's logs are read and its SOURCE.md
// (and Falco's malformed fixture) passed over, saying so.
func TestRealWorldFolders(t *testing.T) {
	root := realWorld(t)
	for dir, passed := range map[string][]string{
		"falco-trace-deletes":           {"SOURCE.md", "fal_01_003.json"},
		"sysdig-aks-eventhub":           {"SOURCE.md"},
		"khi-gke-logentry-yaml":         {"SOURCE.md"},
		"elastic-integrations-pipeline": {"SOURCE.md"},
		"audit2rbac-impersonation":      {"SOURCE.md"},
	} {
		l, err := Read([]string{filepath.Join(root, dir)}, nil, Options{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		var got []string
		for _, w := range l.Warnings {
			if strings.HasPrefix(w.Message, "passed over ") {
				got = append(got, filepath.Base(w.Position.File))
			}
		}
		if strings.Join(got, ",") != strings.Join(passed, ",") {
			t.Errorf("%s: passed over %q, want %q", dir, got, passed)
		}
		for _, f := range l.Files {
			if f.Bad != 0 || f.Events == 0 {
				t.Errorf("%s: %d events, %d bad", f.Path, f.Events, f.Bad)
			}
		}
	}
}

// TestRealWorldFacts: what the converted and older events say is what
// their sources say.
func TestRealWorldFacts(t *testing.T) {
	root := realWorld(t)
	read := func(file string) *Event {
		t.Helper()
		l, err := Read([]string{filepath.Join(root, file)}, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if l.Len() != 1 {
			t.Fatalf("%s: %d requests kept, want 1", file, l.Len())
		}
		return l.At(0)
	}
	// A 2018 extensions/v1beta1 Deployment is today's apps one.
	if e := read("falco-trace-deletes/delete_deployment.json"); e.Object.APIGroup != "apps" || e.Object.Resource != "deployments" ||
		e.Delete == nil || e.Delete.PropagationPolicy != "Background" || e.User.Username != "minikube-user" {
		t.Errorf("extensions/v1beta1 delete read as %+v, %+v, %+v", e.Object, e.Delete, e.User)
	}
	// GKE: methodName, resourceName and principalEmail make the event;
	// groups are not there to read.
	e := read("khi-gke-logentry-yaml/container_recorder_test_1_1.yaml")
	if e.Verb != "create" || e.Object.Resource != "pods" || e.Object.Namespace == "" || e.Code != 200 ||
		e.User.Username != "system:serviceaccount:kube-system:replicaset-controller" || e.User.Groups != nil || e.Stage != StageResponseComplete {
		t.Errorf("GKE entry read as %s %+v by %+v, code %d, stage %s", e.Verb, e.Object, e.User, e.Code, e.Stage)
	}
	if e.Response == nil || e.Response.Kind != "Pod" || len(e.Response.OwnerReferences) != 1 || e.Response.OwnerReferences[0].Kind != "ReplicaSet" {
		t.Errorf("GKE response read as %+v", e.Response)
	}
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/apply"
	"github.com/kgc-dev/kgc/pkg/capture"
	"github.com/kgc-dev/kgc/pkg/diagnose"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshotio"
)

// fakeCluster is a live cluster for kgc apply's command: it serves the
// shop dump as captured live, accepts the DELETE, and then shows the
// cascade held by pod-b's finalizer until the test interrupts.
type fakeCluster struct {
	before, after *snapshot.Snapshot
	// watching closes once a watch delivered every object's state.
	watching chan struct{}

	mu      sync.Mutex
	deleted bool
}

func (f *fakeCluster) Capture(context.Context, string) (*snapshot.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deleted {
		return f.after, nil
	}
	return f.before, nil
}

func (f *fakeCluster) Delete(context.Context, apply.DeleteRequest) apply.Response {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = true
	return apply.Response{Status: 200, Message: "OK", AuditID: "00000000-0000-4000-8000-000000000001"}
}

func (f *fakeCluster) Identity(context.Context) string { return "alice" }

func (f *fakeCluster) Get(context.Context, snapshot.ObjectRef) (map[string]any, error) {
	return nil, os.ErrNotExist
}

func (f *fakeCluster) Send(context.Context, diagnose.RemedyRequest, bool) apply.Response {
	return apply.Response{Status: 500, Message: "not served by the fake"}
}

// Watch reports each object as it is in after (absent: gone), then stays
// open until the follow ends.
func (f *fakeCluster) Watch(ctx context.Context, objs []snapshot.ObjectRef) (<-chan apply.Event, error) {
	out := make(chan apply.Event)
	go func() {
		defer close(out)
		for _, o := range objs {
			var st *plan.FinalState
			if obj := findUID(f.after, o.UID); obj != nil {
				owners := []string{}
				for _, r := range obj.Metadata.OwnerReferences {
					owners = append(owners, r.UID)
				}
				st = &plan.FinalState{Exists: true, Terminating: obj.Metadata.DeletionTimestamp != nil,
					Finalizers: obj.Metadata.Finalizers, OwnerReferences: owners}
			}
			select {
			case out <- apply.Event{UID: o.UID, State: st}:
			case <-ctx.Done():
				return
			}
		}
		close(f.watching)
		<-ctx.Done()
	}()
	return out, nil
}

func findUID(s *snapshot.Snapshot, uid string) *snapshot.Object {
	for i := range s.Objects {
		if s.Objects[i].Metadata.UID == uid {
			return &s.Objects[i]
		}
	}
	return nil
}

// liveShop is the shop dump as a live capture of cluster ks-1, the plan of
// deleting deploy/web from it written to a file, and the cluster after the
// DELETE: the Deployment and ReplicaSet gone, pod-b held by its finalizer
// as planned, and pod-a held by a finalizer the plan did not know of.
func liveShop(t *testing.T) (planPath string, f *fakeCluster) {
	t.Helper()
	read := func() *snapshot.Snapshot {
		s, err := snapshotio.ReadFiles([]string{fixedDump(t, "testdata/plan-shop.yaml")}, nil, snapshotio.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Source = snapshot.Source{Type: "live", Server: "https://fake:6443", KubeSystemUID: "ks-1"}
		return s
	}
	before, after := read(), read()
	p, err := plan.Simulate(before, plan.Options{Target: "dep-web", Policy: plan.PolicyBackground})
	if err != nil {
		t.Fatal(err)
	}
	plan.Seal(p, before)
	kept := after.Objects[:0]
	for _, o := range after.Objects {
		at := after.CapturedAt.Add(-time.Minute)
		switch o.Metadata.UID {
		case "dep-web", "rs-web":
			continue
		case "pod-a":
			o.Metadata.DeletionTimestamp = &at
			o.Metadata.Finalizers = []string{"example.com/never"}
		case "pod-b":
			o.Metadata.DeletionTimestamp = &at
		case "cm-web":
			o.Metadata.OwnerReferences = o.Metadata.OwnerReferences[1:] // the collector removed web's
		}
		kept = append(kept, o)
	}
	after.Objects = kept
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	planPath = filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return planPath, &fakeCluster{before: before, after: after, watching: make(chan struct{})}
}

// runApplyWith runs kgc with a fake cluster and an interrupt channel of
// the test's own.
func runApplyWith(t *testing.T, f *fakeCluster, signals chan os.Signal, exited func(int), args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("NO_COLOR", "1")
	var out, errOut strings.Builder
	fac := testFactory(strings.NewReader(""), &out, &errOut)
	fac.Cluster = func(capture.Options) (apply.Cluster, error) { return f, nil }
	fac.Signals = signals
	if exited != nil {
		fac.Exit = exited
	}
	code = Run(fac, append([]string{"kgc"}, args...))
	return out.String(), errOut.String(), code
}

// The first Ctrl-C while following stops following: the report of what
// was seen is printed (the DELETE sent, what is done, what is still held
// and why) and kgc exits 11; the follow's --timeout was an hour.
func TestApplyInterruptPrintsTheReportSoFar(t *testing.T) {
	planPath, f := liveShop(t)
	signals := make(chan os.Signal, 2)
	go func() {
		<-f.watching
		signals <- os.Interrupt
	}()
	exited := func(code int) { t.Errorf("exited at once with %d after one interrupt", code) }
	out, errOut, code := runApplyWith(t, f, signals, exited, "apply", planPath, "--yes", "--allow-blocked", "--timeout", "1h")
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d (interrupted)\nstdout:\n%s\nstderr:\n%s", code, exitInterrupted, out, errOut)
	}
	for _, want := range []string{
		"Outcome: INTERRUPTED: 1 object(s) still in progress when following stopped",
		"DELETE Deployment/web -n shop",
		"as-planned  ReplicaSet/web-7d9f -n shop",
		"as-planned  Pod/web-7d9f-b -n shop (planned blocked)",
		"in-progress Pod/web-7d9f-a -n shop (planned deleted): terminating, finalizers [example.com/never]",
		"why-stuck: Pod/web-7d9f-a -n shop has been terminating for 60s",
		"interrupted while following: the cascade goes on in the cluster",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"interrupted: following stops", "interrupt again to exit at once", "error: interrupted: 1 object(s) still in progress"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// A second interrupt exits at once with 130.
func TestApplySecondInterruptExitsAtOnce(t *testing.T) {
	planPath, f := liveShop(t)
	signals := make(chan os.Signal, 2)
	exitedWith := make(chan int, 1)
	go func() {
		<-f.watching
		signals <- os.Interrupt
		signals <- os.Interrupt
	}()
	_, errOut, _ := runApplyWith(t, f, signals, func(code int) { exitedWith <- code }, "apply", planPath, "--yes", "--allow-blocked", "--timeout", "1h")
	select {
	case code := <-exitedWith:
		if code != exitAtOnce {
			t.Errorf("exited with %d, want %d", code, exitAtOnce)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("a second interrupt did not exit:\n%s", errOut)
	}
}

// A plan run again once carried out exits 10, "already applied", not 4:
// nothing is left to do, and the world did not move.
func TestApplyAlreadyAppliedHasItsOwnCode(t *testing.T) {
	planPath, f := liveShop(t)
	var gone []snapshot.Object
	for _, o := range f.before.Objects {
		if !strings.HasPrefix(o.Metadata.UID, "pod-") && o.Metadata.UID != "dep-web" && o.Metadata.UID != "rs-web" {
			gone = append(gone, o)
		}
	}
	f.before.Objects = gone
	out, errOut, code := runApplyWith(t, f, nil, nil, "apply", planPath, "--yes", "--allow-blocked")
	if code != exitApplied || !strings.Contains(out, "Outcome: refused (already-applied), no request was sent") {
		t.Fatalf("exit %d, want %d with the refusal already-applied\nstdout:\n%s\nstderr:\n%s", code, exitApplied, out, errOut)
	}
}

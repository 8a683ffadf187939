package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

func TestPostmortemRandom(t *testing.T) {
	env := framework.Setup(t)
	t.Parallel()
	ctx := context.Background()
	env.CreateCRDs(t, ctx, randWidget, randGadget)
	seeds := pmSeeds(t)
	people := pmActAs(t, ctx, env)
	var mu sync.Mutex
	total := 0
	t.Run("batches", func(t *testing.T) {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				t.Parallel()
				n := runPMBatch(t, ctx, env, people, seed)
				mu.Lock()
				total += n
				mu.Unlock()
			})
		}
	})
	t.Logf("postmortem random: %d objects in %d batches (seeds %v)", total, len(seeds), seeds)
}

// pmSeeds: -pm-seed, -pm-seeds, or seeds 1, 2 and 3 (and a time-based
// one with -pm-fresh, which CI leaves out: a failing fresh seed must not
// block a change that did not cause it).
func pmSeeds(t *testing.T) []int64 {
	t.Helper()
	switch {
	case *pmSeedFlag != 0:
		return []int64{*pmSeedFlag}
	case *pmSeedsFlag != "":
		var seeds []int64
		for _, f := range strings.Split(*pmSeedsFlag, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				t.Fatalf("-pm-seeds: %v", err)
			}
			seeds = append(seeds, n)
		}
		return seeds
	}
	if !*pmFreshFlag {
		return []int64{1, 2, 3}
	}
	fresh := time.Now().UnixNano()%1_000_000_000 + 1_000_000
	t.Logf("postmortem random: fresh seed this run: %d (replay with -pm-seed %d)", fresh, fresh)
	return []int64{1, 2, 3, fresh}
}

// pmLog is one of the three logs kgc reads.
type pmLog struct{ name, path string }

// pmMismatch is one disagreement of kgc with the truth on one object.
type pmMismatch struct {
	log, how string
	answer   pmAnswer
	what     string
}

// runPMBatch plays one batch and compares kgc with the truth; it returns
// how many objects the batch had.
func runPMBatch(t *testing.T, ctx context.Context, env *framework.Env, people pmPeopleClients, seed int64) int {
	b := generatePM(seed, *pmObjectsFlag)
	dir := keptDir(t)
	b.build(t, ctx, env)
	t.Cleanup(func() { b.cleanup(context.Background(), env) })
	if _, err := b.settle(ctx, env, nil, 3*time.Second); err != nil {
		t.Fatalf("seed %d: settling before the window: %v", seed, err)
	}
	beforeFile, afterFile := filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json")
	// The log covers the before snapshot's time, as a real post-mortem's
	// does: what was made after it is in the log.
	from := time.Now().Add(-time.Second)
	env.KGC(t, "snapshot", "--output-file", beforeFile)
	mid := b.playPhase(t, ctx, env, people, 1)
	after := mid
	if b.hasPhase(2) {
		after = b.playPhase(t, ctx, env, people, 2)
	}
	after = b.afterSnapshot(t, ctx, env, people, after, afterFile)
	to := time.Now().Add(time.Second)
	all, err := framework.ReadAuditLog(mustFiles(t, env)...)
	if err != nil {
		t.Fatal(err)
	}
	events := framework.AuditWindow(all, from, to)
	rd := readPMLog(events)
	truth := b.truth(rd, mid, after)
	logs := writePMLogs(t, dir, events)
	if *pmLogsFlag != "all" {
		logs = logs[:1] // the RequestResponse log
	}
	t.Logf("seed %d: %d objects, %d audit events in the window; replay with -pm-seed %d\n%s", seed, len(truth), len(events), seed, b)
	writeTruth(t, dir, b, truth)

	var mismatches = map[int][]pmMismatch{}
	var problems []string
	var mu sync.Mutex
	for _, l := range logs {
		args := []string{"postmortem", "-A", "--audit-log", l.path, "--before", beforeFile, "--after", afterFile, "-o", "json"}
		pm := runPM(t, env, args)
		for i, tr := range truth {
			if tr.Premise != "" {
				continue
			}
			a := b.answer(pm, i)
			if d := b.disagrees(pm, i, tr, a); d != "" {
				mismatches[i] = append(mismatches[i], pmMismatch{log: l.name, how: "-A", answer: a, what: d})
			}
		}
		for _, p := range b.docProblems(pm, rd, truth) {
			problems = append(problems, fmt.Sprintf("[%s] %s", l.name, p))
		}
		b.askEach(t, env, l, beforeFile, afterFile, truth, func(i int, m pmMismatch) {
			mu.Lock()
			defer mu.Unlock()
			mismatches[i] = append(mismatches[i], m)
		})
	}
	b.report(t, dir, truth, mismatches, problems, logs, beforeFile, afterFile)
	return len(truth)
}

// afterSnapshot takes the after snapshot, and again (after settling) as
// long as the batch's objects changed while it was taken: the truth and
// kgc's after state must be the same state.
func (b *pmBatch) afterSnapshot(t *testing.T, ctx context.Context, env *framework.Env, people pmPeopleClients, states map[string]framework.ObjState, file string) map[string]framework.ObjState {
	t.Helper()
	for try := 0; try < 3; try++ {
		env.KGC(t, "snapshot", "--output-file", file)
		now, err := b.capture(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		if framework.Fingerprint(now) == framework.Fingerprint(states) {
			return states
		}
		if states, err = b.settle(ctx, env, people, 4*time.Second); err != nil {
			t.Fatalf("seed %d: settling again for the after snapshot: %v", b.Seed, err)
		}
	}
	t.Fatalf("seed %d: the objects kept changing while the after snapshot was taken", b.Seed)
	return nil
}

func (b *pmBatch) hasPhase(p int) bool {
	for _, a := range b.Acts {
		if a.Phase == p {
			return true
		}
	}
	return false
}

// runPM runs a kgc postmortem and decodes its document; no output may hold
// the Secrets' value.
func runPM(t *testing.T, env *framework.Env, args []string) framework.PostMortem {
	t.Helper()
	res := env.RunKGC(t, args...)
	requireNoSecret(t, res)
	if res.ExitCode != 0 {
		t.Fatalf("%s", res)
	}
	var pm framework.PostMortem
	if err := json.Unmarshal(res.Stdout, &pm); err != nil {
		t.Fatalf("decoding: %v\n%s", err, res)
	}
	return pm
}

// askEach asks kgc about each object a chain reached, one by one
// (TYPE/NAME), and reports the answers that disagree with the truth.
func (b *pmBatch) askEach(t *testing.T, env *framework.Env, l pmLog, beforeFile, afterFile string, truth map[int]pmTruth, report func(int, pmMismatch)) {
	var asked []int
	for i, tr := range truth {
		if tr.Premise == "" && tr.Cause.Root >= 0 {
			asked = append(asked, i)
		}
	}
	sort.Ints(asked)
	if *pmQueryFlag >= 0 && len(asked) > *pmQueryFlag {
		asked = asked[:*pmQueryFlag]
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < 3; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				o := b.Objs[i]
				args := []string{"postmortem", b.typeArg(i) + "/" + o.name}
				if o.ns != "" {
					args = append(args, "-n", o.ns)
				}
				args = append(args, "--audit-log", l.path, "--before", beforeFile, "--after", afterFile, "-o", "json")
				res := env.RunKGC(t, args...)
				var pm framework.PostMortem
				if res.ExitCode != 0 || json.Unmarshal(res.Stdout, &pm) != nil {
					report(i, pmMismatch{log: l.name, how: "asked one by one", what: "kgc failed: " + res.String()})
					continue
				}
				tr := truth[i]
				a := b.answer(pm, i)
				if a.Cause != b.truthKey(tr.Cause) || a.Fate != tr.Fate {
					what := "chain or fate"
					if len(pm.Roots) == 0 {
						what = "no chain (No deletion in the window matches)"
					}
					report(i, pmMismatch{log: l.name, how: "asked " + strings.Join(args[1:len(args)-8], " "), answer: a, what: what})
				}
			}
		}()
	}
	for _, i := range asked {
		work <- i
	}
	close(work)
	wg.Wait()
}

// writePMLogs writes the window three ways, without the harness's own
// reads (its polling while it waited, noise to every scenario): as the
// API server logged it (RequestResponse for changes), a Metadata-level
// copy (no request or response object, level Metadata), and a copy
// without the garbage collector's and the namespace controller's
// requests (as a policy that drops them to save volume).
func writePMLogs(t *testing.T, dir string, events []framework.AuditEvent) []pmLog {
	t.Helper()
	var kept []framework.AuditEvent
	for _, e := range events {
		if !harnessRead(e) {
			kept = append(kept, e)
		}
	}
	meta, noCtl := pmCopies(t, kept)
	logs := []pmLog{
		{"RequestResponse", filepath.Join(dir, "audit-requestresponse.log")},
		{"Metadata", filepath.Join(dir, "audit-metadata.log")},
		{"no-controllers", filepath.Join(dir, "audit-no-controllers.log")},
	}
	for k, evs := range [][]framework.AuditEvent{kept, meta, noCtl} {
		if err := framework.WriteAuditLog(logs[k].path, evs); err != nil {
			t.Fatal(err)
		}
	}
	return logs
}

// pmCopies are a log's Metadata-level copy (no request or response
// object, level Metadata) and its copy without the garbage collector's
// and the namespace controller's requests.
func pmCopies(t *testing.T, events []framework.AuditEvent) (meta, noCtl []framework.AuditEvent) {
	t.Helper()
	for _, e := range events {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e.Raw, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "requestObject")
		delete(m, "responseObject")
		m["level"] = json.RawMessage(`"Metadata"`)
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		me := e
		me.Raw = raw
		meta = append(meta, me)
		if u := e.User.Username; u != "system:serviceaccount:kube-system:generic-garbage-collector" && u != "system:serviceaccount:kube-system:namespace-controller" {
			noCtl = append(noCtl, e)
		}
	}
	return meta, noCtl
}

// writeTruth keeps the truth table next to the logs, for a person to run
// kgc on them again by hand.
func writeTruth(t *testing.T, dir string, b *pmBatch, truth map[int]pmTruth) {
	t.Helper()
	var s strings.Builder
	s.WriteString(b.String())
	s.WriteString("\ntruth:\n")
	for i := range b.Objs {
		if tr, ok := truth[i]; ok {
			fmt.Fprintf(&s, "  %s %s %s: %s (%s)%s\n", b.Objs[i].ID, b.Objs[i].Kind, b.where(i), b.truthString(tr), tr.Why, premiseNote(tr))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "truth.txt"), []byte(s.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func premiseNote(tr pmTruth) string {
	if tr.Premise == "" {
		return ""
	}
	return " PREMISE: " + tr.Premise
}

// report fails the batch with everything needed to reproduce and judge
// each disagreement.
func (b *pmBatch) report(t *testing.T, dir string, truth map[int]pmTruth, mismatches map[int][]pmMismatch, problems []string, logs []pmLog, beforeFile, afterFile string) {
	t.Helper()
	var premises []string
	for i := range b.Objs {
		if tr, ok := truth[i]; ok && tr.Premise != "" {
			premises = append(premises, fmt.Sprintf("  %s %s %s: %s", b.Objs[i].ID, b.Objs[i].Kind, b.where(i), tr.Premise))
		}
	}
	for _, a := range b.Acts {
		if a.err != nil && a.Verb == "create" {
			premises = append(premises, "  "+b.describeAct(a))
		}
	}
	fates := map[string]int{}
	for _, tr := range truth {
		fates[tr.Fate]++
	}
	t.Logf("seed %d: %d objects (%v); kgc disagrees on %d, %d document problems, %d premises the test could not establish",
		b.Seed, len(truth), fates, len(mismatches), len(problems), len(premises))
	if len(mismatches) == 0 && len(problems) == 0 && len(premises) == 0 {
		return
	}
	var s strings.Builder
	fmt.Fprintf(&s, "seed %d: kgc postmortem disagrees with the truth on %d of %d objects\n", b.Seed, len(mismatches), len(truth))
	fmt.Fprintf(&s, "replay: cd test/e2e && flock /tmp/kgc-e2e.lock go test -count=1 -timeout 30m -run 'TestPostmortemRandom' . -pm-seed %d\n", b.Seed)
	fmt.Fprintf(&s, "by hand (files kept in %s, truth.txt holds the truth table):\n", dir)
	for _, l := range logs {
		fmt.Fprintf(&s, "  kgc postmortem -A --audit-log %s --before %s --after %s\n", l.path, beforeFile, afterFile)
	}
	var ids []int
	for i := range mismatches {
		ids = append(ids, i)
	}
	sort.Ints(ids)
	for n, i := range ids {
		if n == 80 {
			fmt.Fprintf(&s, "... and %d more objects\n", len(ids)-n)
			break
		}
		tr := truth[i]
		fmt.Fprintf(&s, "%s %s %s\n  truth: %s (%s)\n", b.Objs[i].ID, b.Objs[i].Kind, b.where(i), b.truthString(tr), tr.Why)
		for _, m := range mismatches[i] {
			fmt.Fprintf(&s, "  kgc [%s, %s]: %s: %s\n", m.log, m.how, m.what, m.answer)
		}
	}
	if len(problems) > 0 {
		s.WriteString("document problems:\n")
		for _, p := range problems {
			fmt.Fprintf(&s, "  %s\n", p)
		}
	}
	if len(premises) > 0 {
		s.WriteString("premises the test could not establish (a test bug, not kgc's):\n" + strings.Join(premises, "\n") + "\n")
	}
	s.WriteString("scenario:\n" + b.String())
	t.Errorf("%s", s.String())
}

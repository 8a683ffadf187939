package postmortem

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file analyzes a spilled log a part at a time (audit.Log.Parts) and
// merges what the parts found into the one document a log held whole
// gives. Each part's roots are written, in the part's document order, to
// a temporary file of its own as JSON lines; they are merged in document
// order (by their request's time, then by object, as rootOrder sorts)
// while they are written. What a root's document cannot know until every
// part is read is settled as it is merged: which types some swept object
// is known of in any part, so which of a namespace's sweeps are
// unitemized (a part drops those of the types it knows of; the merge
// drops the others').

// parts is what the parts' analyses left for the merge.
type parts struct {
	files []*os.File
	n     int
	// swept are the types some swept object is known of, in any part.
	swept       map[typeKey]bool
	unexplained []Unexplained
	stillGoing  []StillGoing
	dryRuns     []DryRun
	// all counts every part's roots, scope not applied; known is what a
	// part knows of the object asked about.
	all     int
	known   string
	missing []missingRoot
	hole    bool
}

// missingRoot is a root whose own deletion is not in the log, as the
// warnings sort it.
type missingRoot struct {
	at  time.Time
	ref snapshot.ObjectRef
}

// count is how many roots the parts hold; none without parts.
func (p *parts) count() int {
	if p == nil {
		return 0
	}
	return p.n
}

// prepareParts analyzes every part of a spilled log in turn, keeping of
// each what the document needs.
func prepareParts(in Input) (*Analysis, error) {
	rt, ok := in.Log.Router().(*router)
	if !ok {
		// Another router noted nothing of custom resources: one part.
		rt = newRouter()
		in.Log.Tie("", audit.AllParts)
	}
	homes := rt.tieSnapshots(in.Log, in.Before, in.After)
	p := &parts{swept: map[typeKey]bool{}}
	for part, err := range in.Log.Parts() {
		if err == nil {
			err = p.add(in, &share{before: ownedBy(part, homes[0]), after: ownedBy(part, homes[1])}, part)
		}
		if err != nil {
			p.close()
			return nil, err
		}
	}
	// The log's files count what every part kept: the window is known now.
	return &Analysis{in: in, doc: newDocument(in), applied: map[string]bool{}, parts: p}, nil
}

// ownedBy lists, in their snapshot's order, the objects of the parts a
// share of the log holds.
func ownedBy(part *audit.Part, homes map[string][]int32) []int32 {
	var out []int32
	for home, objs := range homes {
		if part.Owns(home) {
			out = append(out, objs...)
		}
	}
	slices.Sort(out)
	return out
}

// add analyzes one part and writes its roots to a file of their own.
func (p *parts) add(in Input, sh *share, part *audit.Part) error {
	sub := in
	sub.Log = part.Log
	a := newAnalysis(sub, sh, window(in.Log).From)
	maps.Copy(p.swept, a.ch.sweptTypes)
	f, err := os.CreateTemp("", "kgc-roots-*.jsonl")
	if err != nil {
		return rootsFileError(err)
	}
	_ = os.Remove(f.Name()) // else removed when the merge ends
	p.files = append(p.files, f)
	w := bufio.NewWriterSize(f, 1<<16)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err = a.Roots(RootBatch, func(roots []Root) error {
		p.n += len(roots)
		for i := range roots {
			if err := enc.Encode(&roots[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return rootsFileError(err)
	}
	p.stillGoing = append(p.stillGoing, a.stillGoing...)
	p.unexplained = append(p.unexplained, a.ch.explainRest(in.Scope)...)
	p.dryRuns = append(p.dryRuns, a.ix.dryRunDocs(in.Scope)...)
	p.all += len(a.order)
	if k := a.ix.knownOf(in.Scope); k != "" && p.known == "" {
		p.known = k
	}
	for _, r := range a.ch.missing {
		p.missing = append(p.missing, missingRoot{r.startTime(), r.ref()})
	}
	return nil
}

func rootsFileError(err error) error {
	return fmt.Errorf("writing a post-mortem's roots to a temporary file: %w: make room in the temporary folder %s or name another with $TMPDIR", err, os.TempDir())
}

// roots merges the parts' roots in document order and hands them to emit
// batch at a time, their unitemized sweeps settled.
func (p *parts) roots(batch int, emit func([]Root) error) error {
	defer p.close()
	heads := make([]*rootReader, 0, len(p.files))
	for _, f := range p.files {
		r, err := newRootReader(f)
		if err != nil {
			return err
		}
		if r != nil {
			heads = append(heads, r)
		}
	}
	out := make([]Root, 0, min(batch, p.n))
	for len(heads) > 0 {
		i := earliest(heads)
		root := heads[i].root
		root.Unitemized = unitemized(root.Unitemized, p.swept)
		p.hole = p.hole || hasHole(&root)
		out = append(out, root)
		ok, err := heads[i].next()
		if err != nil {
			return err
		}
		if !ok {
			heads = slices.Delete(heads, i, i+1)
		}
		if len(out) == batch || len(heads) == 0 {
			if err := emit(out); err != nil {
				return err
			}
			out = make([]Root, 0, min(batch, p.n))
		}
	}
	return nil
}

// earliest is the head whose root comes first in the document.
func earliest(heads []*rootReader) int {
	best := 0
	for i := 1; i < len(heads); i++ {
		if compareRoots(&heads[i].root, &heads[best].root) < 0 {
			best = i
		}
	}
	return best
}

// compareRoots orders roots as rootOrder does: by their request's time
// (the time their deletion started), then by object.
func compareRoots(a, b *Root) int {
	if c := a.Request.Time.Compare(b.Request.Time); c != 0 {
		return c
	}
	return a.Request.Object.Compare(b.Request.Object.ObjectRef)
}

// rootReader reads back the roots of one part.
type rootReader struct {
	dec  *json.Decoder
	root Root
}

// newRootReader reads a part's file from its start; nil when it holds
// no root.
func newRootReader(f *os.File) (*rootReader, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading back a post-mortem's roots: %w", err)
	}
	r := &rootReader{dec: json.NewDecoder(bufio.NewReaderSize(f, 1<<16))}
	ok, err := r.next()
	if !ok || err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rootReader) next() (bool, error) {
	r.root = Root{}
	err := r.dec.Decode(&r.root)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading back a post-mortem's roots: %w", err)
	}
	return true, nil
}

func (p *parts) close() {
	for _, f := range p.files {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
	p.files = nil
}

// finish fills what follows the roots from every part.
func (p *parts) finish(a *Analysis) {
	pm, in := a.doc, a.in
	slices.SortFunc(p.unexplained, func(a, b Unexplained) int { return a.Object.Compare(b.Object) })
	pm.Unexplained = append(pm.Unexplained, p.unexplained...)
	slices.SortFunc(p.stillGoing, func(a, b StillGoing) int { return a.Object.Compare(b.Object) })
	pm.StillGoing = append(pm.StillGoing, p.stillGoing...)
	sortDryRuns(p.dryRuns)
	pm.DryRuns = p.dryRuns
	pm.NoMatch = noMatch(in.Scope, p.all-p.n, p.known)
	slices.SortStableFunc(p.missing, func(a, b missingRoot) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.ref.Compare(b.ref)
	})
	pm.Warnings = snapshotWarnings(in)
	for _, m := range p.missing {
		pm.Warnings = append(pm.Warnings, missingWarning(m.ref))
	}
	pm.Warnings = append(pm.Warnings, unappliedReports(in.ApplyReports, a.applied, in.Log)...)
	pm.Complete = len(pm.Window.Gaps) == 0 && len(pm.Unexplained) == 0 && !p.hole
}

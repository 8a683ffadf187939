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
)

// This file analyzes the log a part at a time and merges what the parts
// found into one document. A log held whole is one part; a spilled log's
// parts are those audit.Log.Parts reads (see parts.go for what ties
// them). A part builds its roots in its document order; a spilled log's
// parts write theirs to a temporary file each, as JSON lines, and are
// merged in document order (rootStart) as they are written. What a root's
// document cannot know until every part is read is settled as it is
// merged: which types some swept object is known of in any part, so which
// of a namespace's sweeps are unitemized (a part drops those of the types
// it knows of; the merge drops the others'). What follows the roots is
// gathered from every part (rest) and written once (Analysis.Finish).

// rootSource hands over the roots in scope of one part, in the part's
// document order: next reports false once there is none left.
type rootSource interface {
	next() (Root, bool, error)
	close()
}

// rest is what the parts leave for what follows the roots.
type rest struct {
	// swept are the types some swept object is known of, in any part.
	swept       map[typeKey]bool
	unexplained []Unexplained
	stillGoing  []StillGoing
	dryRuns     []DryRun
	// all counts every part's roots, scope not applied, and kept those in
	// scope the merge handed over; known is what a part knows of the
	// object asked about.
	all, kept int
	known     string
	// missing are the roots whose own deletion is not in the log.
	missing []rootStart
	hole    bool
	// applied are the audit IDs joined to an apply report, logged those
	// of the reports' requests some part's log holds.
	applied, logged map[string]bool
}

func newRest() *rest {
	return &rest{swept: map[typeKey]bool{}, applied: map[string]bool{}, logged: map[string]bool{}}
}

// part is the analysis of one part of the log (the whole log, when held
// whole). It builds its roots a batch at a time as they are asked for,
// and once it has built them all leaves what follows them to rest and
// lets go of its index.
type part struct {
	in    Input
	ix    *index
	ch    *chains
	order []*record
	// built are the roots in scope of order[:done] not yet handed over.
	built []Root
	done  int
	rest  *rest
}

// newPart files a part's log, the snapshots' objects sh holds (all when
// nil), and decides every object's cause.
func newPart(in Input, sh *share, from time.Time, r *rest) *part {
	k := newKinds(in.Before, in.After)
	ix := newIndex(k, in.Before, in.After, in.Log.Len(), sh)
	ix.logFrom = from
	for e := range in.Log.All() {
		ix.file(e)
	}
	ix.attachSweeps()
	ix.fileUnloggedDryRuns()
	ch := buildChains(ix)
	p := &part{in: in, ix: ix, ch: ch, order: ch.rootOrder(), rest: r}
	maps.Copy(r.swept, ch.sweptTypes)
	return p
}

// next builds the part's next batch of roots when none is left, a share
// of it per core.
func (p *part) next() (Root, bool, error) {
	for len(p.built) == 0 {
		if p.ix == nil {
			return Root{}, false, nil
		}
		if p.done == len(p.order) {
			p.leave()
			return Root{}, false, nil
		}
		hi := min(p.done+RootBatch, len(p.order))
		p.built = p.keep(p.ch.rootDocs(p.order[p.done:hi]))
		p.done = hi
	}
	root := p.built[0]
	p.built = p.built[1:]
	return root, true, nil
}

// keep drops the roots out of scope, and notes what the others tell the
// rest of the document.
func (p *part) keep(docs []Root) []Root {
	kept := docs[:0]
	for _, root := range docs {
		if !p.in.Scope.keeps(&root) {
			continue
		}
		if p.in.Predict && p.in.Before != nil {
			root.Prediction = predict(p.in.Before, &root, p.ix, p.in.WhyStuck)
		}
		p.note(&root)
		kept = append(kept, root)
	}
	return kept
}

// note keeps what a root tells the rest of the document, and joins it to
// the apply report that sent its request.
func (p *part) note(root *Root) {
	r := p.rest
	r.stillGoing = append(r.stillGoing, stillGoing(root, p.ix, p.in.WhyStuck)...)
	id := root.Request.AuditID
	if r.applied[id] {
		return
	}
	// The first root of a request is joined, to the last report naming it.
	for _, rep := range p.in.ApplyReports {
		if slices.Contains(rep.AuditIDs, id) {
			root.Request.ApplyReport = &ApplyReportRef{Digest: rep.Digest, File: rep.File}
			r.applied[id] = true
		}
	}
}

// leave hands what follows the roots over to rest, and lets go of the
// index.
func (p *part) leave() {
	r, s := p.rest, p.in.Scope
	r.unexplained = append(r.unexplained, p.ch.explainRest(s)...)
	r.dryRuns = append(r.dryRuns, p.ix.dryRunDocs(s)...)
	r.all += len(p.order)
	if k := p.ix.knownOf(s); k != "" && r.known == "" {
		r.known = k
	}
	for _, m := range p.ch.missing {
		r.missing = append(r.missing, rootStart{m.startTime(), m.ref()})
	}
	noteLogged(p.in.ApplyReports, p.in.Log, r.applied, r.logged)
	p.close()
}

// close lets go of the index, whether or not every root was handed over.
func (p *part) close() { p.ix, p.ch, p.order, p.built = nil, nil, nil, nil }

// spillParts analyzes every part of a spilled log in turn, its roots
// written to a temporary file of its own, what follows them to rest.
func spillParts(in Input, r *rest) ([]rootSource, error) {
	rt, ok := in.Log.Router().(*router)
	if !ok {
		// Another router noted nothing of custom resources: one part.
		rt = newRouter()
		in.Log.Tie("", audit.AllParts)
	}
	homes := rt.tieSnapshots(in.Log, in.Before, in.After)
	var files []rootSource
	for logPart, err := range in.Log.Parts() {
		var f *rootFile
		if err == nil {
			sub := in
			sub.Log = logPart.Log
			p := newPart(sub, &share{before: ownedBy(logPart, homes[0]), after: ownedBy(logPart, homes[1])}, window(in.Log).From, r)
			f, err = writeRoots(p)
		}
		if err != nil {
			closeAll(files)
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// ownedBy lists, in their snapshot's order, the objects of the parts a
// share of the log holds.
func ownedBy(share *audit.Part, homes map[string][]int32) []int32 {
	var out []int32
	for home, objs := range homes {
		if share.Owns(home) {
			out = append(out, objs...)
		}
	}
	slices.Sort(out)
	return out
}

func closeAll(parts []rootSource) {
	for _, p := range parts {
		p.close()
	}
}

// rootFile is a temporary file of a part's roots, read back as they are
// merged.
type rootFile struct {
	f   *os.File
	dec *json.Decoder
}

// writeRoots writes a part's roots to a temporary file.
func writeRoots(p *part) (*rootFile, error) {
	f, err := os.CreateTemp("", "kgc-roots-*.jsonl")
	if err != nil {
		return nil, rootsFileError(err)
	}
	_ = os.Remove(f.Name()) // else removed when the merge ends
	rf := &rootFile{f: f}
	w := bufio.NewWriterSize(f, 1<<16)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for {
		root, ok, _ := p.next() // a part held in memory does not fail
		if !ok {
			break
		}
		if err = enc.Encode(&root); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		rf.close()
		return nil, rootsFileError(err)
	}
	return rf, nil
}

func rootsFileError(err error) error {
	return fmt.Errorf("writing a post-mortem's roots to a temporary file: %w: make room in the temporary folder %s or name another with $TMPDIR", err, os.TempDir())
}

// next reads the file's next root, from its start the first time.
func (rf *rootFile) next() (Root, bool, error) {
	if rf.dec == nil {
		if _, err := rf.f.Seek(0, io.SeekStart); err != nil {
			return Root{}, false, fmt.Errorf("reading back a post-mortem's roots: %w", err)
		}
		rf.dec = json.NewDecoder(bufio.NewReaderSize(rf.f, 1<<16))
	}
	var root Root
	err := rf.dec.Decode(&root)
	if errors.Is(err, io.EOF) {
		return Root{}, false, nil
	}
	if err != nil {
		return Root{}, false, fmt.Errorf("reading back a post-mortem's roots: %w", err)
	}
	return root, true, nil
}

func (rf *rootFile) close() {
	_ = rf.f.Close()
	_ = os.Remove(rf.f.Name())
}

// head is a part's root that comes next from it in the merge.
type head struct {
	src  rootSource
	root Root
}

func (h *head) next() (bool, error) {
	var (
		ok  bool
		err error
	)
	h.root, ok, err = h.src.next()
	return ok, err
}

// openHeads reads the first root of every part that has one.
func openHeads(parts []rootSource) ([]*head, error) {
	heads := make([]*head, 0, len(parts))
	for _, p := range parts {
		h := &head{src: p}
		ok, err := h.next()
		if err != nil {
			return nil, err
		}
		if ok {
			heads = append(heads, h)
		}
	}
	return heads, nil
}

// earliest is the head whose root comes first in the document.
func earliest(heads []*head) int {
	best := 0
	for i := 1; i < len(heads); i++ {
		if startOf(&heads[i].root).compare(startOf(&heads[best].root)) < 0 {
			best = i
		}
	}
	return best
}

// startOf is where a root's document stands: its request's time is when
// its deletion started.
func startOf(r *Root) rootStart { return rootStart{r.Request.Time, r.Request.Object.ObjectRef} }

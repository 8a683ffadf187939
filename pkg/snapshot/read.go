package snapshot

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// DefaultMaxFileBytes bounds one YAML file, one JSON value outside a list
// and one list item: hostile or accidental input cannot make kgc use
// unbounded memory. JSON lists are streamed item by item, so a JSON file
// itself may be far larger.
const DefaultMaxFileBytes = 256 << 20

// ReadOptions tunes ReadFiles.
type ReadOptions struct {
	// MaxFileBytes is the largest YAML document or single JSON object
	// accepted; 0 means DefaultMaxFileBytes.
	MaxFileBytes int64

	// yamlStreamAt is the size from which a kubectl-shaped YAML List is
	// read item by item (0: defaultYAMLStreamAt); tests lower it.
	yamlStreamAt int
}

// reader accumulates objects and warnings across the files of one ReadFiles.
type reader struct {
	max      int
	x        *Extractor
	objs     objStore
	objFile  []int32
	files    []string
	warnings []Warning
	uids     map[string]int32
	dups     []Object

	snapshots []Snapshot // headers (source, resources, capturedAt) of kgc snapshot files
	newest    time.Time
	skipped   int
	skippedEx string
	readFiles int
	plainDocs int // top-level values that were not kgc snapshots

	yamlStreamAt int
	stdinUsed    bool
	curFile      int32
	listHinted   []int
}

// ReadFiles reads dumps and snapshot files: paths are files, folders
// (read recursively: JSON and YAML files, gzipped or not) or "-" for
// stdin. Problems with single objects become warnings; a named file that
// cannot be read or parsed is an error naming it, while in a folder it
// becomes a warning and the other files are still read.
func ReadFiles(paths []string, stdin io.Reader, opts ReadOptions) (*Snapshot, error) {
	max := opts.MaxFileBytes
	if max <= 0 {
		max = DefaultMaxFileBytes
	}
	if max > 1<<40 {
		max = 1 << 40
	}
	rd := &reader{max: int(max), x: NewExtractor(), uids: map[string]int32{}, yamlStreamAt: opts.yamlStreamAt}
	if rd.yamlStreamAt <= 0 {
		rd.yamlStreamAt = defaultYAMLStreamAt
	}
	if len(paths) == 0 {
		return nil, errors.New("no input files: give -f FILE, -f FOLDER or -f - for stdin")
	}
	for _, p := range paths {
		if p == "-" {
			if stdin == nil {
				return nil, errors.New("-f -: no standard input to read")
			}
			if err := rd.readOne("-", "stdin", stdin); err != nil {
				return nil, err
			}
			rd.newest = time.Now()
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, err)
		}
		if st.IsDir() {
			if err := rd.readDir(p); err != nil {
				return nil, err
			}
			continue
		}
		if err := rd.readPath(p, st); err != nil {
			return nil, err
		}
	}
	if rd.skipped > 0 {
		msg := fmt.Sprintf("ignored %s, which is neither JSON nor YAML", rd.skippedEx)
		if rd.skipped > 1 {
			msg = fmt.Sprintf("ignored %d files that are neither JSON nor YAML (such as %s)", rd.skipped, rd.skippedEx)
		}
		rd.warnings = append(rd.warnings, Warning{Message: msg})
	}
	if rd.readFiles == 0 {
		for _, w := range rd.warnings {
			if w.File != "" {
				return nil, fmt.Errorf("nothing could be read from %s: %s", strings.Join(paths, ", "), w.String())
			}
		}
		return nil, fmt.Errorf("nothing could be read from %s: no JSON or YAML files", strings.Join(paths, ", "))
	}
	return rd.finish(paths), nil
}

// finish builds the catalog, counts and sorts.
func (rd *reader) finish(paths []string) *Snapshot {
	s := &Snapshot{APIVersion: APIVersion, Kind: "Snapshot", Source: Source{Type: "files", Files: append([]string(nil), paths...)}}
	s.CapturedAt = rd.newest.UTC().Truncate(time.Second)
	// A catalog is discovery's only when every input is a live snapshot:
	// then a kind it lacks is not served. Otherwise the built-in table and
	// the CRDs in the input stand in for discovery.
	discovered := len(rd.snapshots) > 0 && rd.plainDocs == 0
	for _, h := range rd.snapshots {
		if h.Source.Server == "" {
			discovered = false
		}
		s.DiscoveryErrors = append(s.DiscoveryErrors, h.DiscoveryErrors...)
		if h.Source.Namespace != "" {
			s.Source.Namespace = h.Source.Namespace
		}
	}
	if discovered {
		h := rd.snapshots[0]
		s.Source.Server, s.Source.ServerVersion, s.Source.Context = h.Source.Server, h.Source.ServerVersion, h.Source.Context
	}
	if len(rd.snapshots) == 1 && len(rd.files) == 1 {
		s.CapturedAt = rd.snapshots[0].CapturedAt
	}
	// Catalog: snapshot files' own catalogs (live discovery) first, then the
	// built-in table, then the CRDs found among the objects.
	var res []Resource
	fromSnapshot := map[groupKind]bool{}
	seen := map[groupKind]int{}
	addRes := func(r Resource, snap bool) {
		gk := groupKind{r.Group, r.Kind}
		if i, ok := seen[gk]; ok {
			if snap && res[i].Listed != r.Listed && r.Listed {
				res[i].Listed, res[i].Error = true, ""
			}
			return
		}
		seen[gk] = len(res)
		if snap {
			fromSnapshot[gk] = true
		}
		res = append(res, r)
	}
	for _, h := range rd.snapshots {
		for _, r := range h.Resources {
			addRes(r, true)
		}
	}
	if !discovered {
		for _, r := range BuiltinResources() {
			addRes(r, false)
		}
		for i := range rd.objs.Len() {
			if f := rd.objs.At(i).Facts; f != nil && f.CRD != nil {
				if r, ok := crdResource(f.CRD); ok {
					addRes(r, false)
				}
			}
		}
	}
	for i := range res {
		res[i].Count = 0
	}
	// One warning per unknown kind, naming its first object and how many
	// there are: a dump of a thousand custom resources should not print a
	// thousand lines.
	unknownWarning := map[groupKind]int{}
	unknownCount := map[groupKind]int{}
	why := "no CRD for it in the input"
	if discovered {
		why = "the cluster's discovery did not serve it"
	}
	for i := range rd.objs.Len() {
		o := rd.objs.At(i)
		g, _ := splitGroupVersion(o.APIVersion)
		gk := groupKind{g, o.Kind}
		if j, ok := seen[gk]; ok {
			res[j].Count++
			continue
		}
		unknownCount[gk]++
		if _, ok := unknownWarning[gk]; !ok {
			unknownWarning[gk] = len(rd.warnings)
			rd.warnings = append(rd.warnings, Warning{File: rd.files[rd.objFile[i]], Object: o.Ref().String(),
				Message: fmt.Sprintf("kind %s of %s is not in the resource catalog (%s); kept, but its type is unknown", o.Kind, o.APIVersion, why)})
		}
	}
	for gk, n := range unknownCount {
		if n > 1 {
			rd.warnings[unknownWarning[gk]].Message += fmt.Sprintf(" (%d objects of this kind)", n)
		}
	}
	for i := range res {
		if !fromSnapshot[groupKind{res[i].Group, res[i].Kind}] {
			// A dump shows a type only through its objects: a type with none
			// is "not listed", so owners of that type are unknown, not dangling.
			res[i].Listed = res[i].Count > 0
		}
	}
	sort.SliceStable(res, func(i, j int) bool {
		if res[i].Group != res[j].Group {
			return res[i].Group < res[j].Group
		}
		return res[i].Resource < res[j].Resource
	})
	s.Resources = res
	s.Objects = rd.objs.Sorted()
	s.Duplicates = rd.dups
	s.Warnings = rd.warnings
	return s
}

package snapshotio

import (
	"errors"
	"hash/maphash"
	"io"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
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
	max int
	x   *Extractor
	// xs are the extractors of items' goroutines, x first.
	xs       []*Extractor
	objs     objStore
	objFile  []int32
	files    []string
	warnings []snapshot.Warning
	// uidHashes are the read objects' UIDs hashed with seed, by store
	// index: findRepeats finds repeated UIDs among them.
	uidHashes []uint64
	seed      maphash.Seed
	dups      []snapshot.Object

	snapshots []snapshot.Snapshot // headers (source, resources, capturedAt) of kgc snapshot files
	newest    time.Time           // the newest file's capture time (endFile)
	declared  time.Time           // the capture time the current file declares, if any
	skipped   int
	skippedEx string
	readFiles int
	plainDocs int // top-level values that were not kgc snapshots

	yamlStreamAt int
	curFile      int32
	listHinted   []int

	// fileTimes is, per file, when its content was captured: a kgc
	// snapshot's capturedAt, else the file's modification time. It decides
	// which copy of an object read twice is the newer.
	fileTimes []time.Time
	// repeats are objects whose UID was already read, judged once every
	// file's time is known.
	repeats    []repeat
	emptyFiles []string
	// typedLists are the types of typed lists read (ReplicaSetList), in
	// the order met: a typed list proves its type was listed, even empty.
	typedLists []groupKind
}

// ReadFiles reads dumps and snapshot files: paths are files, folders
// (read recursively: JSON and YAML files, gzipped or not) or "-" for
// stdin. Problems with single objects become warnings; a named file that
// cannot be read or parsed is an error naming it, while in a folder it
// becomes a warning and the other files are still read.
func ReadFiles(paths []string, stdin io.Reader, opts ReadOptions) (*snapshot.Snapshot, error) {
	if err := checkArgs(paths); err != nil {
		return nil, err
	}
	rd := newReader(opts)
	for _, p := range paths {
		if err := rd.readArg(p, stdin); err != nil {
			return nil, err
		}
	}
	rd.warnSkipped()
	if rd.readFiles == 0 {
		return nil, rd.nothingRead(paths)
	}
	if rd.objs.Len() == 0 {
		return nil, rd.noObjects(paths)
	}
	rd.warnEmptyFiles()
	return rd.finish(paths), nil
}

// checkArgs rejects input arguments that cannot be read as given, before
// anything is read.
func checkArgs(paths []string) error {
	if len(paths) == 0 {
		return errors.New("no input files: give -f FILE, -f FOLDER or -f - for stdin")
	}
	stdin := 0
	for _, p := range paths {
		if p == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		// A second read of stdin would find it empty and silently add
		// nothing.
		return errors.New("-f - is given more than once: standard input can be read only once; give -f - once")
	}
	return nil
}

func newReader(opts ReadOptions) *reader {
	max := opts.MaxFileBytes
	if max <= 0 {
		max = DefaultMaxFileBytes
	}
	if max > 1<<40 {
		max = 1 << 40
	}
	rd := &reader{max: int(max), x: NewExtractor(), seed: maphash.MakeSeed(), yamlStreamAt: opts.yamlStreamAt}
	if rd.yamlStreamAt <= 0 {
		rd.yamlStreamAt = defaultYAMLStreamAt
	}
	return rd
}

// finish builds the snapshot from what was read: its source, the catalog
// with each type's count, and the objects in the contract's order.
func (rd *reader) finish(paths []string) *snapshot.Snapshot {
	rd.settleRepeats()
	s, discovered := rd.header(paths)
	cat := rd.catalog(discovered)
	rd.warnUnknownKinds(rd.count(cat), discovered)
	cat.markListed(rd.typedLists)
	s.Resources = cat.sorted()
	s.Objects = rd.objs.Sorted()
	s.Duplicates = rd.dups
	s.Warnings = rd.warnings
	return s
}

// header is the snapshot without its catalog and objects: where it came
// from, when, and which discovery failed. It also reports whether the
// catalog is discovery's: only when every input is a live snapshot, for
// then a kind it lacks is not served. Otherwise the built-in table and
// the CRDs in the input stand in for discovery.
func (rd *reader) header(paths []string) (*snapshot.Snapshot, bool) {
	s := &snapshot.Snapshot{APIVersion: snapshot.APIVersion, Kind: "Snapshot", Source: snapshot.Source{Type: "files", Files: append([]string(nil), paths...)}}
	s.CapturedAt = rd.newest.UTC().Truncate(time.Second)
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
	return s, discovered
}

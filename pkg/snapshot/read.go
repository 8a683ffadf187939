package snapshot

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/version"
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

// noUIDMessage explains why objects without a UID are dropped: they come
// from manifests or templates, not from the cluster.
const noUIDMessage = "skipped: no metadata.uid; templates are not cluster state"

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

func (rd *reader) readPath(path string, st fs.FileInfo) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	if mt := st.ModTime(); mt.After(rd.newest) {
		rd.newest = mt
	}
	return rd.readOne(path, path, f)
}

// readDir walks a folder in lexical order. Files that are not JSON or YAML
// (kubectl cluster-info dump's logs.txt) are skipped; a file that fails
// becomes a warning.
func (rd *reader) readDir(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			rd.warnings = append(rd.warnings, Warning{File: path, Message: fmt.Sprintf("skipped: %v", err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		name := strings.ToLower(strings.TrimSuffix(d.Name(), ".gz"))
		ext := filepath.Ext(name)
		if ext != ".json" && ext != ".yaml" && ext != ".yml" {
			// Like kubectl -f DIR, skip what is plainly not a manifest
			// (documentation, pod logs of cluster-info dump) in silence;
			// anything else is counted, in case it was meant to be read.
			if !quietSkip(name, ext) {
				rd.skipped++
				if rd.skippedEx == "" {
					rd.skippedEx = path
				}
			}
			return nil
		}
		st, err := d.Info()
		if err != nil {
			rd.warnings = append(rd.warnings, Warning{File: path, Message: fmt.Sprintf("skipped: %v", err)})
			return nil
		}
		before := rd.objs.Len()
		if err := rd.readPath(path, st); err != nil {
			var fe *fileError
			if errors.As(err, &fe) {
				err = fe.err
			}
			msg := fmt.Sprintf("skipped the rest of the file: %v", err)
			if n := rd.objs.Len() - before; n > 0 {
				msg += fmt.Sprintf(" (%d objects read before the error were kept)", n)
			}
			rd.warnings = append(rd.warnings, Warning{File: path, Message: msg})
		}
		return nil
	})
}

func quietSkip(name, ext string) bool {
	switch ext {
	case ".md", ".txt", ".log", ".rst", ".adoc":
		return true
	}
	return name == "readme" || name == "license" || name == ".ds_store"
}

// fileError names the file in an error that stops reading it.
type fileError struct {
	file string
	err  error
}

func (e *fileError) Error() string { return e.file + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// readOne reads one input: gzip is recognised by its magic bytes, JSON by
// its first character, anything else is YAML.
func (rd *reader) readOne(display, name string, r io.Reader) error {
	if err := rd.parse(display, name, r); err != nil {
		return err
	}
	rd.readFiles++
	return nil
}

func (rd *reader) parse(display, name string, r io.Reader) error {
	rd.files = append(rd.files, display)
	rd.curFile = int32(len(rd.files) - 1)
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &fileError{display, fmt.Errorf("invalid gzip data: %w", err)}
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
		name = strings.TrimSuffix(name, ".gz")
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte{0xef, 0xbb, 0xbf}) {
		br.Discard(3)
	}
	hint := hintFromFileName(name)
	first, err := firstNonSpace(br)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file holds no objects
		}
		return &fileError{display, err}
	}
	if first == '{' || first == '[' {
		if err := rd.readJSON(br, display, hint, ""); err != nil {
			return &fileError{display, err}
		}
		return nil
	}
	if err := rd.readYAML(br, display, hint); err != nil {
		return &fileError{display, err}
	}
	return nil
}

func firstNonSpace(br *bufio.Reader) (byte, error) {
	for i := 1; ; i++ {
		b, err := br.Peek(i)
		if len(b) < i {
			if err == nil {
				err = io.EOF
			}
			return 0, err
		}
		c := b[i-1]
		if !isSpace(c) {
			return c, nil
		}
		if i > 4096 {
			if _, err := br.Discard(i); err != nil {
				return 0, err
			}
			i = 0
		}
	}
}

// typeHint is the type of list items that carry none: kubectl cluster-info
// dump writes typed lists whose items lack apiVersion and kind, in files
// named after the resource (pods.json).
type typeHint struct{ apiVersion, kind string }

func hintFromFileName(name string) typeHint {
	base := strings.ToLower(filepath.Base(name))
	for _, ext := range []string{".json", ".yaml", ".yml"} {
		base = strings.TrimSuffix(base, ext)
	}
	// cluster-info dump names one file replication-controllers.json.
	base = strings.ReplaceAll(base, "-", "")
	for _, b := range builtinTable {
		if b.resource == base {
			return typeHint{b.gv, b.kind}
		}
	}
	return typeHint{}
}

// readJSON reads a stream of JSON values: objects, Lists (items streamed
// one by one), kgc Snapshots (objects streamed) or arrays of objects.
func (rd *reader) readJSON(r io.Reader, file string, hint typeHint, where string) error {
	st := newStream(r, rd.max)
	for n := 1; ; n++ {
		c, err := st.peek()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return st.wrap(err)
		}
		w := where
		if w == "" && n > 1 {
			w = fmt.Sprintf("value %d", n)
		}
		switch c {
		case '=':
			// kubectl cluster-info dump to stdout interleaves container
			// logs with the JSON lists.
			if !st.hasPrefix(logsStart) {
				return st.errorf("expected an object or a list, found %q", c)
			}
			err = st.skipLinePast(logsEnd)
			n--
		case '{':
			err = rd.topObject(st, file, hint, w)
		case '[':
			err = rd.topArray(st, file, hint, w)
		default:
			err = st.errorf("expected an object or a list, found %q", c)
		}
		if err != nil {
			return err
		}
	}
}

// Container logs in `kubectl cluster-info dump` output written to stdout.
var (
	logsStart = []byte("==== START logs for container ")
	logsEnd   = []byte("==== END logs for container ")
)

func (rd *reader) topArray(st *stream, file string, hint typeHint, where string) error {
	rd.plainDocs++
	if err := st.expect('['); err != nil {
		return err
	}
	return rd.items(st, file, hint, where, "[%d]")
}

// items reads the elements of an array whose '[' was consumed.
func (rd *reader) items(st *stream, file string, hint typeHint, where, descFmt string) error {
	c, err := st.peek()
	if err != nil {
		return st.wrap(err)
	}
	if c == ']' {
		st.pos++
		return nil
	}
	for i := 0; ; i++ {
		desc := func() string {
			d := fmt.Sprintf(descFmt, i)
			if where != "" {
				d = where + " " + d
			}
			return d
		}
		c, err := st.peek()
		if err != nil {
			return st.wrap(err)
		}
		if c != '{' {
			if _, err := st.value(); err != nil {
				return err
			}
			rd.warnings = append(rd.warnings, Warning{File: file, Object: desc(), Message: "skipped: not an object"})
		} else if err := rd.streamItem(st, file, hint, desc); err != nil {
			return err
		}
		c, err = st.peek()
		if err != nil {
			return st.wrap(err)
		}
		st.pos++
		switch c {
		case ',':
		case ']':
			return nil
		default:
			st.pos--
			return st.errorf("expected ',' or ']' after a list item, found %q", c)
		}
	}
}

// streamItem extracts the object at the stream's position straight from
// the read buffer, reading more until it is complete: scanning it once
// instead of once to find its end and again to extract it.
func (rd *reader) streamItem(st *stream, file string, hint typeHint, desc func() string) error {
	for {
		f, n, err := splitTopPrefix(st.buf[st.pos:st.end])
		if err == nil {
			if n > st.maxVal {
				return &errTooLarge{st.maxVal}
			}
			rd.add(file, desc, f, hint)
			st.pos += n
			return nil
		}
		var se *syntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: %w", desc(), st.errorfAt(st.pos+se.off, "%s", se.msg))
		}
		if err != errIncomplete {
			return fmt.Errorf("%s: %w", desc(), err)
		}
		if st.eof {
			return fmt.Errorf("%s: %w", desc(), st.errorf("unexpected end of input inside a list item"))
		}
		if st.end-st.pos > st.maxVal {
			return &errTooLarge{st.maxVal}
		}
		if err := st.fill(); err != nil {
			return st.wrap(err)
		}
	}
}

// topObject reads one top-level object. Its "items" (a List) or "objects"
// (a kgc Snapshot) are streamed; other fields are kept until the object
// ends, when it is known what the object was.
func (rd *reader) topObject(st *stream, file string, hint typeHint, where string) error {
	if err := st.expect('{'); err != nil {
		return err
	}
	fields := map[string][]byte{}
	streamed := false
	start := rd.objs.Len()
	rd.listHinted = rd.listHinted[:0]
	c, err := st.peek()
	if err != nil {
		return st.wrap(err)
	}
	if c == '}' {
		st.pos++
		return nil
	}
	for {
		kraw, err := st.value()
		if err != nil {
			return err
		}
		if len(kraw) == 0 || kraw[0] != '"' {
			return st.errorf("expected a string key")
		}
		key, err := unescape(kraw)
		if err != nil {
			return st.errorf("invalid key")
		}
		if err := st.expect(':'); err != nil {
			return err
		}
		c, err := st.peek()
		if err != nil {
			return st.wrap(err)
		}
		if (key == "items" || key == "objects") && c == '[' {
			st.pos++
			h := hint
			if k := fieldString(fields["kind"]); strings.HasSuffix(k, "List") && k != "List" {
				h = typeHint{fieldString(fields["apiVersion"]), strings.TrimSuffix(k, "List")}
			}
			if err := rd.items(st, file, h, where, key+"[%d]"); err != nil {
				return err
			}
			streamed = true
		} else {
			v, err := st.value()
			if err != nil {
				return err
			}
			fields[key] = bytes.Clone(v)
		}
		c, err = st.peek()
		if err != nil {
			return st.wrap(err)
		}
		st.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			st.pos--
			return st.errorf("expected ',' or '}' after an object field, found %q", c)
		}
	}
	kind := fieldString(fields["kind"])
	apiVersion := fieldString(fields["apiVersion"])
	if kind == "Snapshot" && apiVersion == APIVersion {
		return rd.snapshotHeader(fields)
	}
	rd.plainDocs++
	if streamed {
		// Items typed only by their list's kind, which may come after them.
		if strings.HasSuffix(kind, "List") && kind != "List" {
			for _, i := range rd.listHinted {
				if o := rd.objs.At(i); i >= start && o.Kind == "" {
					o.APIVersion, o.Kind = apiVersion, strings.TrimSuffix(kind, "List")
				}
			}
		}
		return nil
	}
	if strings.HasSuffix(kind, "List") {
		return nil // a list without items ("items": null)
	}
	f := topFields{apiVersion: fields["apiVersion"], kind: fields["kind"], metadata: fields["metadata"],
		spec: fields["spec"], status: fields["status"], facts: fields["facts"]}
	desc := where
	if desc == "" {
		desc = "the object"
	}
	rd.add(file, func() string { return desc }, f, hint)
	return nil
}

func fieldString(raw []byte) string {
	if raw == nil {
		return ""
	}
	s := scanner{d: raw}
	v, _ := s.str()
	return v
}

func (rd *reader) snapshotHeader(fields map[string][]byte) error {
	var h Snapshot
	for key, dst := range map[string]any{"capturedAt": &h.CapturedAt, "source": &h.Source, "resources": &h.Resources, "discoveryErrors": &h.DiscoveryErrors} {
		if raw, ok := fields[key]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return fmt.Errorf("snapshot %s: %w", key, err)
			}
		}
	}
	rd.snapshots = append(rd.snapshots, h)
	return nil
}

// add extracts one object and files it, or explains why not.
func (rd *reader) add(file string, desc func() string, f topFields, hint typeHint) {
	o, err := rd.x.extract(f, hint.apiVersion, hint.kind)
	// Named lazily: building the name of every object of a big dump costs
	// more than reading it.
	name := func() string {
		if o.Metadata.Name != "" && o.Kind != "" {
			return o.Ref().String()
		}
		return desc()
	}
	if err != nil {
		rd.warnings = append(rd.warnings, Warning{File: file, Object: name(), Message: fmt.Sprintf("skipped: %v", err)})
		return
	}
	if o.Metadata.UID == "" {
		rd.warnings = append(rd.warnings, Warning{File: file, Object: name(), Message: noUIDMessage})
		return
	}
	if o.Kind == "" {
		rd.listHinted = append(rd.listHinted, rd.objs.Len())
	}
	for i, r := range o.Metadata.OwnerReferences {
		if missing := r.MissingFields(); len(missing) > 0 {
			rd.warnings = append(rd.warnings, Warning{File: file, Object: name(),
				Message: fmt.Sprintf("ownerReferences[%d] has no %s; kept, the garbage collector cannot resolve it", i, strings.Join(missing, ", "))})
		}
	}
	if j, dup := rd.uids[o.Metadata.UID]; dup {
		first := rd.objs.At(int(j))
		rd.warnings = append(rd.warnings, Warning{File: file, Object: name(),
			Message: fmt.Sprintf("duplicate uid %s: already read as %s in %s; kept the first", o.Metadata.UID, first.Ref().String(), rd.files[rd.objFile[j]])})
		rd.dups = append(rd.dups, o)
		return
	}
	rd.uids[o.Metadata.UID] = int32(rd.objs.Len())
	rd.objs.Append(o)
	rd.objFile = append(rd.objFile, rd.curFile)
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

// crdResource turns a CRD into the catalog entry discovery would serve.
// The preferred version is the first served one in Kubernetes' version
// priority order, as the apiextensions discovery controller sorts them.
func crdResource(c *CRDFacts) (Resource, bool) {
	var served []string
	for _, v := range c.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
	}
	if len(served) == 0 || c.Kind == "" || c.Plural == "" {
		return Resource{}, false
	}
	sort.SliceStable(served, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(served[i], served[j]) > 0
	})
	singular := c.Singular
	if singular == "" {
		singular = strings.ToLower(c.Kind)
	}
	return Resource{
		Group: c.Group, Version: served[0], Resource: c.Plural, Kind: c.Kind,
		Namespaced: c.Scope != "Cluster", ShortNames: c.ShortNames, Singular: singular,
		Categories: c.Categories, Verbs: append([]string(nil), verbsStandard...), Versions: served,
	}, true
}

// objStore holds objects in fixed-size chunks while reading: appending to
// one growing slice would copy a million objects several times over and
// briefly hold two copies.
type objStore struct {
	chunks [][]Object
	n      int
}

const chunkBits = 14

func (st *objStore) Len() int { return st.n }

func (st *objStore) At(i int) *Object { return &st.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (st *objStore) Append(o Object) {
	if st.n>>chunkBits == len(st.chunks) {
		st.chunks = append(st.chunks, make([]Object, 1<<chunkBits))
	}
	*st.At(st.n) = o
	st.n++
}

// Sorted returns the objects in the contract's order, in one exactly
// sized slice, and empties the store.
func (st *objStore) Sorted() []Object {
	idx := make([]int32, st.n)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return compareObjects(st.At(int(a)), st.At(int(b))) })
	out := make([]Object, st.n)
	for k, i := range idx {
		out[k] = *st.At(int(i))
	}
	st.chunks, st.n = nil, 0
	return out
}

// compareObjects orders objects by (namespace, kind, name, uid), the
// contract's order.
func compareObjects(a, b *Object) int {
	if c := strings.Compare(a.Metadata.Namespace, b.Metadata.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(a.Metadata.Name, b.Metadata.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Metadata.UID, b.Metadata.UID)
}

// SortObjects sorts objects in the contract's order. It sorts indexes and
// permutes in place, because moving whole Objects during a sort of a
// million of them costs more than the comparisons.
func SortObjects(objs []Object) {
	sorted := true
	for i := 1; i < len(objs); i++ {
		if compareObjects(&objs[i-1], &objs[i]) > 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	idx := make([]int32, len(objs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int { return compareObjects(&objs[a], &objs[b]) })
	// Apply the permutation by following cycles: position i takes objs[idx[i]].
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		tmp := objs[i]
		j := i
		for {
			k := int(idx[j])
			idx[j] = -1
			if k == i {
				objs[j] = tmp
				break
			}
			objs[j] = objs[k]
			j = k
		}
	}
}

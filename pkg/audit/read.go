package audit

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/kgc-dev/kgc/internal/jsonskip"
)

// Options bound what Read keeps. A zero time is unbounded.
type Options struct {
	// Since and Until keep the events whose stageTimestamp is in
	// [Since, Until].
	Since, Until time.Time
	// Fold leaves out the creates, updates and patches of an object that
	// no post-mortem reads (see fold.go): most of a big log's writes.
	// They still count as kept in their File. Leave it unset when every
	// request's audit ID must be found, as an apply report's join needs.
	Fold bool
	// Spill, when Router is set, is how many requests Read holds before
	// it writes them to temporary files, to be read a part at a time
	// (see Log.Parts): a log too big to hold whole. Zero holds every one.
	Spill  int
	Router Router
	// Format, unless auto, is the platform whose exports every file is
	// read as (--audit-format); auto tells each file's form from its
	// content.
	Format Family
	// cores, when set, says how the reader splits its work (tests
	// compare a reader on one core with one on many); nil is every core.
	cores *cores
}

// Read reads audit logs: kube-apiserver files written with
// --audit-log-format=json (rotated ones too, gzipped or not), folders of
// them, EventList documents as the webhook backend sends them, "-" for
// stdin, and each managed platform's export of them (see format.go),
// told apart by their content unless opts.Format forces one. It merges
// every file's events by stageTimestamp, collapses the stages of one
// request into one Event, and keeps only the requests a post-mortem
// needs, reduced to their metadata (see Event).
//
// A file named that is not an audit log is an error naming it; one in a
// folder is passed over with a warning. Lines that cannot be read are
// warnings naming file and line, and the rest is read.
func Read(paths []string, stdin io.Reader, opts Options) (*Log, error) {
	if len(paths) == 0 {
		return nil, errors.New("no audit log given: name the kube-apiserver's audit log files or folders, or - for stdin")
	}
	files, err := expand(paths)
	if err != nil {
		return nil, err
	}
	r := &reader{opts: opts, stdin: stdin, c: startRequestTable(opts)}
	for _, in := range files {
		err := r.readFile(len(r.files), in.path)
		var nal *notAuditLogError
		if in.inFolder && errors.As(err, &nal) && !nal.partly {
			r.warn(in.path, 0, fmt.Sprintf("passed over %s: it is not an audit log (line %d: %s)", in.path, nal.line, nal.why))
			continue
		}
		if err != nil {
			r.c.wait()
			return nil, err
		}
	}
	r.c.wait()
	return r.finish(paths)
}

// input is a file to read, and whether a folder named it.
type input struct {
	path     string
	inFolder bool
}

// expand replaces each folder by the regular files in it and in its
// folders, sorted by path.
func expand(paths []string) ([]input, error) {
	var files []input
	for _, p := range paths {
		if p == "-" {
			files = append(files, input{path: p})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("reading audit log: %w", err)
		}
		if !st.IsDir() {
			files = append(files, input{path: p})
			continue
		}
		n := len(files)
		// Exports nest their files in folders (an S3 export's task and
		// stream, a storage account's y=/m=/d=/h=): read them all.
		err = filepath.WalkDir(p, func(full string, e fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("reading audit log folder: %w", err)
			}
			if st, err := os.Stat(full); err == nil && st.Mode().IsRegular() { // sorted by name
				files = append(files, input{path: full, inFolder: true})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(files) == n {
			return nil, fmt.Errorf("audit log folder %s holds no file: name the folder of the kube-apiserver's --audit-log-path", p)
		}
	}
	return files, nil
}

// reader accumulates what every file gave.
type reader struct {
	opts     Options
	stdin    io.Reader
	c        *requestTable
	files    []File
	warnings []Warning
	dropped  int
}

// open opens a path (or stdin), decompressing it when it starts with
// gzip's magic bytes, whatever its name.
func (r *reader) open(path string) (io.Reader, func() error, error) {
	src := r.stdin
	closer := func() error { return nil }
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, fmt.Errorf("reading audit log: %w", err)
		}
		src, closer = f, f.Close
	}
	if src == nil {
		return nil, nil, errors.New("reading audit log from stdin: no stdin")
	}
	br := bufio.NewReaderSize(src, 1<<16)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br) // reads every member of a multi-member file
		if err != nil {
			_ = closer()
			return nil, nil, fmt.Errorf("reading audit log %s: %w", path, err)
		}
		return gz, closer, nil
	}
	return br, closer, nil
}

// sniffSize is how far the reader looks for the end of the first line.
const sniffSize = 1 << 20

// bom is the UTF-8 byte order mark some Windows tools start a file with.
const bom = "\xef\xbb\xbf"

func (r *reader) readFile(idx int, path string) error {
	src, closer, err := r.open(path)
	if err != nil {
		return err
	}
	defer func() { _ = closer() }()
	br := bufio.NewReaderSize(src, sniffSize)
	if b, _ := br.Peek(len(bom)); string(b) == bom {
		_, _ = br.Discard(len(bom))
	}
	blank, err := skipBlank(br)
	if errors.Is(err, io.EOF) {
		r.files = append(r.files, File{Path: path})
		r.warn(path, 0, fmt.Sprintf("%s is empty: it holds no audit events", path))
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading audit log %s: %w", path, err)
	}
	acc, err := r.readAs(br, src, idx, path, blank+1)
	if err != nil {
		return err
	}
	return r.add(acc, path)
}

// readAs reads a file in the form its first line shows: one native event
// a line (the fast path, every core), or one prefixed by a word, or JSON
// values of any other form, base64 subscription payloads, CSV or YAML.
func (r *reader) readAs(br *bufio.Reader, src io.Reader, idx int, path string, line int) (*accumulator, error) {
	sniffed, _ := br.Peek(sniffSize)
	first := sniffed
	if i := indexNewline(first); i >= 0 {
		first = first[:i]
	}
	first = bytes.TrimSpace(first)
	if len(first) == 0 {
		// Spaces JSON does not allow (a vertical tab, a form feed), or
		// a stream that fails before its first line: no form of a log.
		return nil, notAuditLog(path, line, "it is not JSON, YAML or CSV of audit events")
	}
	fam := r.opts.Format
	// Past what br holds, the framer reads src itself: its reads are
	// about as big as br's buffer, and through br every byte of the file
	// would be copied twice.
	rest := func() io.Reader { return io.MultiReader(io.LimitReader(br, int64(br.Buffered())), src) }
	if f, list, err := classify(first); err == nil && (list == "" || messageLines(f, list, sniffed)) && allows(fam, f) {
		// A record a line, of any form, is read on every core: a line
		// not native is converted in its worker (see accumulator.line).
		return readLines(rest(), idx, path, line, r.opts, r.c, func(a *accumulator) {
			a.cv = &converter{acc: a, forced: fam, seen: true}
			if f == formNative {
				a.forms = forms(formNative)
			}
		})
	}
	if f, ok := prefixedForm(first); ok && allows(fam, f) {
		return readLines(rest(), idx, path, line, r.opts, r.c, func(a *accumulator) {
			a.forms, a.prefixed, a.cv = forms(f), true, &converter{acc: a, forced: fam, seen: true}
		})
	}
	acc := newAccumulator(idx, path, r.opts, r.c)
	defer acc.flush()
	cv := &converter{acc: acc, forced: fam}
	acc.cv = cv
	var err error
	switch c := first[0]; {
	case c == '{' || c == '[':
		return acc, readStream(rest(), cv, line)
	case bytes.HasPrefix(first, []byte(base64Gzip)) && allows(fam, formEKSSubscription):
		err = readPayloads(br, acc, cv, line)
	default:
		f, isCSV := csvForm(first)
		switch {
		case isCSV && allows(fam, f):
			err = readCSV(br, cv, f, line)
		case looksLikeYAML(first):
			err = readYAML(br, cv, line)
		default:
			return nil, notAuditLog(path, line, "it is not JSON, YAML or CSV of audit events")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading audit log %s: %w", path, err)
	}
	return acc, nil
}

// notAuditLogError is a file that is not an audit log; partly when
// events of it were read before that was known.
type notAuditLogError struct {
	msg, why string
	line     int
	partly   bool
}

func (e *notAuditLogError) Error() string { return e.msg }

func notAuditLog(path string, line int, why string) *notAuditLogError {
	return &notAuditLogError{why: why, line: line, msg: fmt.Sprintf("%s is not an audit log (line %d: %s): give the kube-apiserver's --audit-log-path file written with --audit-log-format=json, an EventList, or a platform's export of it (see --audit-format)", path, line, why)}
}

// skipBlank consumes leading whitespace and returns the number of
// lines it held.
func skipBlank(br *bufio.Reader) (int, error) {
	lines := 0
	for {
		c, err := br.ReadByte()
		if err != nil {
			return lines, err
		}
		if !jsonskip.IsSpace(c) {
			return lines, br.UnreadByte()
		}
		if c == '\n' {
			lines++
		}
	}
}

// add files what one file gave, with its warnings.
func (r *reader) add(acc *accumulator, path string) error {
	if acc.fatal != nil {
		err := notAuditLog(path, acc.fatal.line, acc.fatal.msg)
		err.partly = acc.events > 0
		return err
	}
	r.dropped += acc.dropped
	f := File{Path: path, Format: acc.forms.String(), Events: acc.events, Bad: acc.badCount,
		Losses: lossWarnings(path, acc, r.opts.Format)}
	f.First, f.Last = acc.window.bounds()
	r.files = append(r.files, f)
	if acc.v1beta1 {
		version := "v1beta1"
		if acc.v1alpha1 {
			version = "v1alpha1"
		}
		r.warn(path, 0, fmt.Sprintf("%s holds audit.k8s.io/%s events: they are read as audit.k8s.io/v1, whose fields a post-mortem reads have the same names", path, version))
	}
	for _, msg := range f.Losses {
		r.warn(path, 0, msg)
	}
	for _, b := range acc.bad {
		// The position is the warning's: the message does not repeat it.
		r.warn(path, b.line, b.msg)
	}
	if acc.badCount > len(acc.bad) {
		r.warn(path, acc.bad[0].line, fmt.Sprintf("%d lines could not be read as audit events, this one the first", acc.badCount))
	}
	if acc.events == 0 && acc.badCount == 0 {
		r.warn(path, 0, fmt.Sprintf("%s holds no audit events", path))
	}
	return nil
}

func (r *reader) warn(path string, line int, msg string) {
	r.warnings = append(r.warnings, Warning{Position: Position{File: path, Line: line}, Message: msg})
}

// finish collapses the stages of each request, drops the failed writes
// and sorts the requests by time.
func (r *reader) finish(paths []string) (*Log, error) {
	events := 0
	for _, f := range r.files {
		events += f.Events
	}
	if events == 0 {
		return nil, fmt.Errorf("no audit events in %s: give the kube-apiserver's audit log (--audit-log-path, written with --audit-log-format=json)", strings.Join(paths, ", "))
	}
	log := &Log{Files: r.files, Warnings: r.warnings, Dropped: r.dropped}
	if s := r.c.spill; s != nil {
		if err := s.flush(); err != nil {
			s.close()
			return nil, err
		}
		log.spill = s
		return log, nil
	}
	dup := r.c.collapseGroups()
	r.c.events(log, r.opts.Fold)
	if dup.n > 0 {
		log.Warnings = append(log.Warnings, dupWarning(dup))
	}
	return log, nil
}

// dupWarning says how many stages were read more than once.
func dupWarning(dup dupCount) Warning {
	return Warning{Position: dup.first, Message: fmt.Sprintf(
		"%d audit events were read more than once (the same auditID and stage: a file given twice, rotated files that overlap, or an aggregated API server such as OpenShift's logging the request the kube-apiserver passed it) and counted once; this one, auditID %s, the first",
		dup.n, dup.id)}
}

// compareStages orders stages by request, then by stage, time and place
// read.
func compareStages(a, b *stage) int {
	if c := strings.Compare(a.ev.AuditID, b.ev.AuditID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	if c := a.ev.Time.Compare(b.ev.Time); c != 0 {
		return c
	}
	if c := cmp.Compare(a.file, b.file); c != 0 {
		return c
	}
	return cmp.Compare(a.ev.Source.Line, b.ev.Source.Line)
}

type dupCount struct {
	n     int
	id    string
	first Position
}

// mergeDup adds d's duplicates to dup: the first named is the one of the
// lowest auditID, as sorting every stage finds it.
func mergeDup(dup *dupCount, d dupCount) {
	if d.n > 0 && (dup.n == 0 || d.id < dup.id) {
		dup.id, dup.first = d.id, d.first
	}
	dup.n += d.n
}

// collapse merges the stages of one request, in stage order: the last
// stage's time and position, and each field from the last stage that
// has it. It reports false for a create, update or patch that failed:
// it changed nothing.
func collapse(stages []*stage, dup *dupCount) (Event, bool) {
	ev := stages[0].ev
	for k := 1; k < len(stages); k++ {
		st := stages[k]
		if st.rank == stages[k-1].rank {
			if dup.n == 0 {
				dup.id, dup.first = st.ev.AuditID, st.ev.Source
			}
			dup.n++
			continue
		}
		mergeStage(&ev, &st.ev)
	}
	return ev, !failedWrite(&ev)
}

func mergeStage(ev, later *Event) {
	ev.Stage, ev.Time, ev.Source = later.Stage, later.Time, later.Source
	if later.Code != 0 {
		ev.Code = later.Code
	}
	if later.Reason != "" {
		ev.Reason = later.Reason
	}
	if ev.Received.IsZero() {
		ev.Received = later.Received
	}
	if later.Level != "" {
		ev.Level = later.Level
	}
	if later.Decision != "" {
		ev.Decision, ev.AuthzReason = later.Decision, later.AuthzReason
	}
	// The API server names the impersonated user only once it has
	// authorized the request: not at RequestReceived.
	if later.ImpersonatedUser != nil {
		ev.ImpersonatedUser = later.ImpersonatedUser
	}
	if later.Delete != nil {
		ev.Delete = later.Delete
	}
	if later.Request != nil {
		ev.Request = later.Request
	}
	if later.Response != nil {
		ev.Response = later.Response
	}
}

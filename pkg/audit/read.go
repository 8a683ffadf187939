package audit

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
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
}

// Read reads audit logs: kube-apiserver files written with
// --audit-log-format=json (rotated ones too, gzipped or not), folders of
// them, EventList documents as the webhook backend sends them, and "-"
// for stdin. It merges every file's events by stageTimestamp, collapses
// the stages of one request into one Event, and keeps only the requests
// a post-mortem needs, reduced to their metadata (see Event).
//
// A file that is not an audit log is an error naming it; lines that
// cannot be read are warnings naming file and line, and the rest is read.
func Read(paths []string, stdin io.Reader, opts Options) (*Log, error) {
	if len(paths) == 0 {
		return nil, errors.New("no audit log given: name the kube-apiserver's audit log files or folders, or - for stdin")
	}
	files, err := expand(paths)
	if err != nil {
		return nil, err
	}
	r := &reader{opts: opts, stdin: stdin, c: newCollector(opts)}
	for i, path := range files {
		if err := r.readFile(i, path); err != nil {
			r.c.wait()
			return nil, err
		}
	}
	r.c.wait()
	return r.finish(files)
}

// expand replaces each folder by the regular files in it, sorted by name.
func expand(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		if p == "-" {
			files = append(files, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("reading audit log: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("reading audit log folder: %w", err)
		}
		n := len(files)
		for _, e := range entries { // sorted by name
			full := filepath.Join(p, e.Name())
			if st, err := os.Stat(full); err == nil && st.Mode().IsRegular() {
				files = append(files, full)
			}
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
	c        *collector
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

func (r *reader) readFile(idx int, path string) error {
	src, closer, err := r.open(path)
	if err != nil {
		return err
	}
	defer func() { _ = closer() }()
	br := bufio.NewReaderSize(src, sniffSize)
	blank, err := skipBlank(br)
	if errors.Is(err, io.EOF) {
		r.files = append(r.files, File{Path: path})
		r.warn(path, 0, fmt.Sprintf("%s is empty: it holds no audit events", path))
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading audit log %s: %w", path, err)
	}
	if c, _ := br.Peek(1); c[0] != '{' {
		return notAuditLog(path, blank+1, "it does not start with a JSON object")
	}
	var acc *accumulator
	if oneLineEvents(br) {
		// Past what br holds, the framer reads src itself: its reads are
		// about as big as br's buffer, and through br every byte of the
		// file would be copied twice.
		rest := io.MultiReader(io.LimitReader(br, int64(br.Buffered())), src)
		acc, err = readLines(rest, idx, path, blank+1, r.opts, r.c)
	} else {
		acc, err = readStream(br, idx, path, blank+1, r.opts, r.c)
	}
	if err != nil {
		return err
	}
	return r.add(acc, path)
}

// notAuditLogError is a file that is not an audit log.
type notAuditLogError struct{ msg string }

func (e *notAuditLogError) Error() string { return e.msg }

func notAuditLog(path string, line int, why string) error {
	return &notAuditLogError{fmt.Sprintf("%s is not an audit log (line %d: %s): give the kube-apiserver's --audit-log-path file written with --audit-log-format=json, or an EventList", path, line, why)}
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

// oneLineEvents says whether the file holds one event per line: its
// first line is a whole JSON object, and not an EventList.
func oneLineEvents(br *bufio.Reader) bool {
	d, _ := br.Peek(sniffSize)
	if i := indexNewline(d); i >= 0 {
		d = d[:i]
	}
	s := scanner{d: d}
	kind := ""
	err := s.object(func(key []byte) error {
		if string(key) == "kind" {
			b, err := s.str()
			kind = string(b)
			return err
		}
		return s.skip()
	})
	return err == nil && kind != "EventList"
}

// add files what one file gave, with its warnings.
func (r *reader) add(acc *accumulator, path string) error {
	if acc.fatal != nil {
		return notAuditLog(path, acc.fatal.line, acc.fatal.msg)
	}
	r.dropped += acc.dropped
	f := File{Path: path, Events: acc.events, Bad: acc.badCount}
	f.First, f.Last = acc.window.bounds()
	r.files = append(r.files, f)
	if acc.v1beta1 {
		r.warn(path, 0, fmt.Sprintf("%s holds audit.k8s.io/v1beta1 events: they are read as audit.k8s.io/v1, whose fields a post-mortem reads have the same names", path))
	}
	for _, b := range acc.bad {
		r.warn(path, b.line, fmt.Sprintf("%s:%d: %s", path, b.line, b.msg))
	}
	if acc.badCount > len(acc.bad) {
		r.warn(path, acc.bad[0].line, fmt.Sprintf("%d lines of %s could not be read as audit events; first at line %d", acc.badCount, path, acc.bad[0].line))
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
		"%d audit events were read more than once (the same auditID and stage: a file given twice, or rotated files that overlap) and counted once; the first is auditID %s at %s:%d",
		dup.n, dup.id, dup.first.File, dup.first.Line)}
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

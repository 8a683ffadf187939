package snapshotio

// This file walks the inputs: standard input, named files, and folders
// read recursively.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// readArg reads one input argument: "-" for standard input, a folder or
// a file.
func (rd *reader) readArg(p string, stdin io.Reader) error {
	if p == "-" {
		if stdin == nil {
			return errors.New("-f -: no standard input to read")
		}
		now := time.Now()
		err := rd.readOne("-", "stdin", now, stdin)
		rd.endFile(now)
		return err
	}
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", p, err)
	}
	if st.IsDir() {
		return rd.readDir(p)
	}
	return rd.readPath(p, st)
}

func (rd *reader) readPath(path string, st fs.FileInfo) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	mt := st.ModTime()
	err = rd.readOne(path, path, mt, f)
	rd.endFile(mt)
	return err
}

// readDir walks a folder in lexical order. Files that are not JSON or YAML
// (kubectl cluster-info dump's logs.txt) are skipped; a file that fails
// becomes a warning.
func (rd *reader) readDir(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			rd.warnings = append(rd.warnings, snapshot.Warning{File: path, Message: fmt.Sprintf("skipped: %v", err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			rd.readDirFile(path, d)
		}
		return nil
	})
}

// readDirFile reads one file of a folder if it is JSON or YAML, gzipped
// or not. A file that fails becomes a warning saying what of it was kept.
func (rd *reader) readDirFile(path string, d fs.DirEntry) {
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
		return
	}
	st, err := d.Info()
	if err != nil {
		rd.warnings = append(rd.warnings, snapshot.Warning{File: path, Message: fmt.Sprintf("skipped: %v", err)})
		return
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
		rd.warnings = append(rd.warnings, snapshot.Warning{File: path, Message: msg})
	}
}

func quietSkip(name, ext string) bool {
	switch ext {
	case ".md", ".txt", ".log", ".rst", ".adoc":
		return true
	}
	return name == "readme" || name == "license" || name == ".ds_store"
}

// warnSkipped warns, once, about the files of folders that were neither
// JSON nor YAML.
func (rd *reader) warnSkipped() {
	if rd.skipped == 0 {
		return
	}
	msg := fmt.Sprintf("ignored %s, which is neither JSON nor YAML", rd.skippedEx)
	if rd.skipped > 1 {
		msg = fmt.Sprintf("ignored %d files that are neither JSON nor YAML (such as %s)", rd.skipped, rd.skippedEx)
	}
	rd.warnings = append(rd.warnings, snapshot.Warning{Message: msg})
}

// nothingRead is the error when no input could be read: the first file
// warning says why, if there is one.
func (rd *reader) nothingRead(paths []string) error {
	for _, w := range rd.warnings {
		if w.File != "" {
			return fmt.Errorf("nothing could be read from %s: %s", strings.Join(paths, ", "), w.String())
		}
	}
	return fmt.Errorf("nothing could be read from %s: no JSON or YAML files", strings.Join(paths, ", "))
}

// noObjects is the error when the input holds no object at all: an empty
// file or an empty list is not an empty cluster, and answering "nothing
// here" about a cluster kgc never saw would be a false all-clear.
func (rd *reader) noObjects(paths []string) error {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = inputName(p)
	}
	in := strings.Join(names, ", ")
	why := "it holds no Kubernetes objects"
	switch {
	case len(rd.emptyFiles) == rd.readFiles && rd.readFiles == 1:
		why = "the file is empty"
	case len(rd.emptyFiles) == rd.readFiles:
		why = "every file is empty"
	case rd.firstSkip() != "":
		why = "every object was skipped, such as " + rd.firstSkip()
	case len(rd.typedLists) > 0:
		var kinds []string
		for _, gk := range rd.typedLists {
			kinds = append(kinds, gk.kind+"List")
		}
		why = "it holds only empty lists (" + strings.Join(kinds, ", ") + ")"
	}
	return fmt.Errorf("no objects in %s: %s; give a dump of the cluster (kubectl get -A -o yaml) or a kgc snapshot", in, why)
}

// firstSkip is the first warning about an object left out, if any.
func (rd *reader) firstSkip() string {
	for _, w := range rd.warnings {
		if w.Object != "" && strings.HasPrefix(w.Message, "skipped") {
			return w.String()
		}
	}
	return ""
}

// warnEmptyFiles names each empty file of an input that holds objects
// elsewhere: the user may have meant to give another file.
func (rd *reader) warnEmptyFiles() {
	for _, f := range rd.emptyFiles {
		rd.warnings = append(rd.warnings, snapshot.Warning{File: inputName(f), Message: "empty file, holds no objects"})
	}
}

// inputName names an input argument in messages.
func inputName(p string) string {
	if p == "-" {
		return "standard input"
	}
	return p
}

package snapshot

// This file walks the inputs: named files, and folders read
// recursively.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

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

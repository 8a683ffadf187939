package snapshotio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// Write writes s as the Snapshot document: deterministic JSON (resources
// sorted by group and resource, objects in the contract's order, one
// object per line so that snapshots diff well).
func Write(w io.Writer, s *snapshot.Snapshot) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	res := append([]snapshot.Resource(nil), s.Resources...)
	snapshot.SortResources(res)
	objs := s.Objects
	if !snapshot.Sorted(objs) {
		objs = append([]snapshot.Object(nil), objs...)
		snapshot.SortObjects(objs)
	}
	kind := s.Kind
	if kind == "" {
		kind = "Snapshot"
	}
	apiVersion := s.APIVersion
	if apiVersion == "" {
		apiVersion = snapshot.APIVersion
	}
	head := struct {
		APIVersion      string                    `json:"apiVersion"`
		Kind            string                    `json:"kind"`
		CapturedAt      any                       `json:"capturedAt"`
		Source          snapshot.Source           `json:"source"`
		DiscoveryErrors []snapshot.DiscoveryError `json:"discoveryErrors,omitempty"`
	}{apiVersion, kind, s.CapturedAt.UTC(), s.Source, s.DiscoveryErrors}
	b, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	bw.Write(b[:len(b)-1])
	bw.WriteString(",\n\"resources\": [")
	for i := range res {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n")
		if b, err = json.Marshal(&res[i]); err != nil {
			return fmt.Errorf("encode resource %s: %w", res[i].QualifiedName(), err)
		}
		bw.Write(b)
	}
	bw.WriteString("],\n\"objects\": [")
	var ow objectWriter
	var buf []byte
	for i := range objs {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
		if buf, err = ow.appendObject(buf[:0], &objs[i]); err != nil {
			return fmt.Errorf("encode object %s: %w", objs[i].Ref().String(), err)
		}
		bw.Write(buf)
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// WriteFile writes s to path, gzipped when path ends in .gz. The file is
// written next to path and renamed, so a failed write leaves no torn file.
func WriteFile(path string, s *snapshot.Snapshot) error {
	return WriteFileAs(path, s, Write)
}

// WriteYAML writes s as the Snapshot document in YAML: the JSON document
// converted whole, so it needs the document's size in memory twice.
func WriteYAML(w io.Writer, s *snapshot.Snapshot) error {
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(b.Bytes())
	if err != nil {
		return fmt.Errorf("encode snapshot as yaml: %w", err)
	}
	_, err = w.Write(y)
	return err
}

// WriteFileAs writes s to path with write (Write or WriteYAML), as
// WriteFile does.
func WriteFileAs(path string, s *snapshot.Snapshot, write func(io.Writer, *snapshot.Snapshot) error) (err error) {
	tmp, err := os.CreateTemp(dirOf(path), ".kgc-snapshot-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if strings.HasSuffix(path, ".gz") {
		err = writeGzip(tmp, s, write)
	} else {
		err = write(tmp, s)
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// writeGzip writes s gzipped to w, at gzip's fastest level (the default
// level took longer than reading and encoding a million objects together,
// for files a fifth smaller), in members compressed on every core
// (gzipMembers) while this goroutine encodes.
func writeGzip(w io.Writer, s *snapshot.Snapshot, write func(io.Writer, *snapshot.Snapshot) error) error {
	zw := newGzipMembers(w)
	werr := write(zw, s)
	if err := zw.Close(); err != nil {
		return err
	}
	return werr
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		if i == 0 {
			return "/"
		}
		return path[:i]
	}
	return "."
}

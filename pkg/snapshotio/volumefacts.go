package snapshotio

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// csiNodeFacts reads the drivers registered on a node (a CSINode).
func csiNodeFacts(f topFields) (*snapshot.Facts, error) {
	var s struct{ Drivers []struct{ Name string } }
	if err := unmarshalParts(f, &s, nil); err != nil {
		return nil, err
	}
	v := &snapshot.VolumeFacts{}
	for _, d := range s.Drivers {
		v.NodeDrivers = append(v.NodeDrivers, d.Name)
	}
	return &snapshot.Facts{Volume: v}, nil
}

// volumeAttachmentFacts reads a VolumeAttachment's attacher, node,
// volume and state.
func volumeAttachmentFacts(f topFields) (*snapshot.Facts, error) {
	var spec struct {
		Attacher, NodeName string
		Source             struct{ PersistentVolumeName *string }
	}
	var status struct {
		Attached                 bool
		AttachError, DetachError json.RawMessage
	}
	if err := unmarshalParts(f, &spec, &status); err != nil {
		return nil, err
	}
	a := &snapshot.VolumeAttachmentFacts{Attacher: spec.Attacher, NodeName: spec.NodeName, Attached: status.Attached,
		AttachError: present(status.AttachError), DetachError: present(status.DetachError)}
	if p := spec.Source.PersistentVolumeName; p != nil {
		a.PersistentVolumeName = *p
	}
	return &snapshot.Facts{Volume: &snapshot.VolumeFacts{Attachment: a}}, nil
}

// daemonSetVolumeFacts adds to a DaemonSet's facts the CSI node plugins
// its pods run (the kubelet plugin directories it mounts). The facts may
// be shared with other objects, so they are copied before they change.
func daemonSetVolumeFacts(facts *snapshot.Facts, f topFields) (*snapshot.Facts, error) {
	var s struct {
		Template struct {
			Spec struct {
				Volumes []struct{ HostPath *struct{ Path string } }
			}
		}
	}
	if err := unmarshalParts(f, &s, nil); err != nil {
		return facts, err
	}
	var plugins []string
	for _, vol := range s.Template.Spec.Volumes {
		if d := pluginDir(vol.HostPath); d != "" && !slices.Contains(plugins, d) {
			plugins = append(plugins, d)
		}
	}
	if len(plugins) == 0 {
		return facts, nil
	}
	cp := *facts
	cp.Volume = &snapshot.VolumeFacts{NodePlugins: plugins}
	return &cp, nil
}

// pluginDir is the driver a kubelet plugin directory belongs to
// (/var/lib/kubelet/plugins/ebs.csi.aws.com, under any kubelet root), ""
// for other paths and for kubernetes.io, where the kubelet keeps CSI
// mounts of every driver.
func pluginDir(h *struct{ Path string }) string {
	if h == nil {
		return ""
	}
	_, rest, ok := strings.Cut(strings.TrimSuffix(h.Path, "/")+"/", "/kubelet/plugins/")
	if !ok {
		return ""
	}
	d, _, _ := strings.Cut(rest, "/")
	if d == "" || d == "kubernetes.io" {
		return ""
	}
	return d
}

// present reports whether a JSON value is set and not null.
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

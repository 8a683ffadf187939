package snapshotio

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// volumeKinds are the storage kinds read in full for why-stuck: a
// CSIDriver's name is its driver (a capture must list every one: a driver
// without one is uninstalled), a CSINode's drivers and a
// VolumeAttachment's state are facts.
var volumeKinds = map[groupKind]bool{
	{"storage.k8s.io", "CSIDriver"}: true, {"storage.k8s.io", "CSINode"}: true, {"storage.k8s.io", "VolumeAttachment"}: true,
}

// volumeFacts adds the VolumeFacts of a CSIDriver, CSINode,
// VolumeAttachment or DaemonSet to o. A DaemonSet's facts may be shared
// with other objects, so they are copied before they change.
func volumeFacts(o *snapshot.Object, f topFields, group string) error {
	var v *snapshot.VolumeFacts
	var err error
	switch {
	case group == "storage.k8s.io" && o.Kind == "CSIDriver":
		v = &snapshot.VolumeFacts{CSIDriver: o.Metadata.Name}
	case group == "storage.k8s.io" && o.Kind == "CSINode":
		var s struct{ Drivers []struct{ Name string } }
		err = unmarshalParts(f, &s, nil)
		v = &snapshot.VolumeFacts{}
		for _, d := range s.Drivers {
			v.NodeDrivers = append(v.NodeDrivers, d.Name)
		}
	case group == "storage.k8s.io" && o.Kind == "VolumeAttachment":
		var spec struct {
			Attacher, NodeName string
			Source             struct{ PersistentVolumeName *string }
		}
		var status struct {
			Attached                 bool
			AttachError, DetachError json.RawMessage
		}
		err = unmarshalParts(f, &spec, &status)
		a := &snapshot.VolumeAttachmentFacts{Attacher: spec.Attacher, NodeName: spec.NodeName, Attached: status.Attached,
			AttachError: present(status.AttachError), DetachError: present(status.DetachError)}
		if p := spec.Source.PersistentVolumeName; p != nil {
			a.PersistentVolumeName = *p
		}
		v = &snapshot.VolumeFacts{Attachment: a}
	case group == "apps" && o.Kind == "DaemonSet" && f.spec != nil:
		var s struct {
			Template struct {
				Spec struct {
					Volumes []struct{ HostPath *struct{ Path string } }
				}
			}
		}
		err = unmarshalParts(f, &s, nil)
		var plugins []string
		for _, vol := range s.Template.Spec.Volumes {
			if d := pluginDir(vol.HostPath); d != "" && !slices.Contains(plugins, d) {
				plugins = append(plugins, d)
			}
		}
		if len(plugins) > 0 {
			v = &snapshot.VolumeFacts{NodePlugins: plugins}
		}
	}
	if v == nil || err != nil {
		return err
	}
	cp := snapshot.Facts{}
	if o.Facts != nil {
		cp = *o.Facts
	}
	cp.Volume = v
	o.Facts = &cp
	return nil
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

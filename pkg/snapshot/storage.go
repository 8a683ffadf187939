package snapshot

// VolumeFacts are what kgc reads to tell why a pod's volumes cannot be
// torn down on its node: which CSI driver a volume needs, whether that
// driver is installed and registered with the node's kubelet, and whether
// an attachment of it is stuck. Only names and states are kept: never a
// volume's attributes, a driver's container arguments or environment, nor
// the text of an attach or detach error.
type VolumeFacts struct {
	// CSIDriver is a CSIDriver object's own name (the driver it
	// installs); a PersistentVolume's driver is PVFacts.Driver.
	CSIDriver string `json:"csiDriver,omitempty"`
	// NodeDrivers are a CSINode's spec.drivers[].name: the drivers whose
	// node plugin registered with that node's kubelet.
	NodeDrivers []string `json:"nodeDrivers,omitempty"`
	// NodePlugins are, on a DaemonSet, the CSI drivers whose kubelet
	// plugin directory (…/kubelet/plugins/DRIVER, the socket the node
	// plugin serves and its registrar registers) its pods mount from the
	// host: the DaemonSet runs those drivers' node plugin.
	NodePlugins []string `json:"nodePlugins,omitempty"`
	// Attachment is a VolumeAttachment's spec and status, reduced.
	Attachment *VolumeAttachmentFacts `json:"attachment,omitempty"`
}

// VolumeAttachmentFacts: which driver attaches which volume to which
// node, whether it is attached, and whether the last attach or detach
// failed (the error's presence only).
type VolumeAttachmentFacts struct {
	Attacher             string `json:"attacher"`
	NodeName             string `json:"nodeName"`
	PersistentVolumeName string `json:"persistentVolumeName,omitempty"`
	Attached             bool   `json:"attached,omitempty"`
	AttachError          bool   `json:"attachError,omitempty"`
	DetachError          bool   `json:"detachError,omitempty"`
}

package audit

import "encoding/json"

// nativeEvent is an audit.k8s.io/v1 Event as the converters of forms that
// take an event apart (GKE, Log Analytics) rebuild it, for the reader
// that reads every native event.
type nativeEvent struct {
	Kind             string            `json:"kind"`
	APIVersion       string            `json:"apiVersion"`
	Level            string            `json:"level,omitempty"`
	AuditID          string            `json:"auditID"`
	Stage            string            `json:"stage"`
	RequestURI       string            `json:"requestURI,omitempty"`
	Verb             string            `json:"verb"`
	User             json.RawMessage   `json:"user,omitempty"`
	ImpersonatedUser json.RawMessage   `json:"impersonatedUser,omitempty"`
	SourceIPs        []string          `json:"sourceIPs,omitempty"`
	UserAgent        string            `json:"userAgent,omitempty"`
	ObjectRef        json.RawMessage   `json:"objectRef,omitempty"`
	ResponseStatus   json.RawMessage   `json:"responseStatus,omitempty"`
	RequestObject    json.RawMessage   `json:"requestObject,omitempty"`
	ResponseObject   json.RawMessage   `json:"responseObject,omitempty"`
	Received         string            `json:"requestReceivedTimestamp,omitempty"`
	StageTimestamp   string            `json:"stageTimestamp"`
	Annotations      map[string]string `json:"annotations,omitempty"`
}

func newNativeEvent() nativeEvent {
	return nativeEvent{Kind: "Event", APIVersion: "audit.k8s.io/v1", Stage: StageResponseComplete}
}

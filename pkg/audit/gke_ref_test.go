package audit

import (
	"bytes"
	"encoding/json"
	"strings"
)

// This file is how kgc read a GKE LogEntry before gke.go: decoded with
// encoding/json into a struct, rebuilt as a native event and read again
// by the native reader. gke_test.go holds the reader to it.

type refEntry struct {
	InsertID  string            `json:"insertId"`
	Timestamp string            `json:"timestamp"`
	Labels    map[string]string `json:"labels"`
	Operation struct {
		ID string `json:"id"`
	} `json:"operation"`
	Proto struct {
		Type   string `json:"@type"`
		Method string `json:"methodName"`
		Name   string `json:"resourceName"`
		Auth   struct {
			Principal string `json:"principalEmail"`
		} `json:"authenticationInfo"`
		Meta struct {
			IP        string `json:"callerIp"`
			UserAgent string `json:"callerSuppliedUserAgent"`
		} `json:"requestMetadata"`
		Status struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
		// The bodies are kept as written: decoding them into maps and
		// encoding them again was most of an entry's cost.
		Request  json.RawMessage `json:"request"`
		Response json.RawMessage `json:"response"`
	} `json:"protoPayload"`
}

// refEvent rebuilds the native event of a LogEntry.
func refEvent(v []byte) ([]byte, error) {
	var e refEntry
	if err := json.Unmarshal(v, &e); err != nil {
		return nil, notEvent("its protoPayload is not a Cloud Audit Log: " + err.Error())
	}
	p := &e.Proto
	if !strings.HasPrefix(p.Method, "io.k8s.") {
		return nil, nil // another service's audit entry, or not one at all
	}
	ev := refNativeEvent()
	ev.AuditID = refFirstOf(e.Operation.ID, e.InsertID)
	ev.Verb = p.Method[strings.LastIndexByte(p.Method, '.')+1:]
	ev.StageTimestamp = e.Timestamp // when the entry was written: the request's end
	ev.UserAgent = p.Meta.UserAgent
	if p.Meta.IP != "" {
		ev.SourceIPs = []string{p.Meta.IP}
	}
	ev.User, _ = json.Marshal(map[string]string{"username": p.Auth.Principal})
	ev.ObjectRef, ev.RequestURI = refObject(p.Name)
	ev.ResponseStatus, _ = json.Marshal(map[string]any{"code": rpcToHTTP(int64(p.Status.Code)), "message": p.Status.Message})
	var err error
	if ev.RequestObject, err = refBody(p.Request); err != nil {
		return nil, notEvent("its protoPayload's request is not an object: " + err.Error())
	}
	if ev.ResponseObject, err = refBody(p.Response); err != nil {
		return nil, notEvent("its protoPayload's response is not an object: " + err.Error())
	}
	ev.Level = levelOf(ev.RequestObject != nil, ev.ResponseObject != nil)
	ev.Annotations = e.Labels
	return json.Marshal(ev)
}

// gkeObject reads a resourceName into an objectRef and a request URI; a
// name of no group and version ("readyz") is a non-resource URL.
func refObject(name string) (json.RawMessage, string) {
	parts := strings.Split(strings.Trim(name, "/"), "/")
	if len(parts) < 3 {
		return nil, "/" + name
	}
	group, version, rest := parts[0], parts[1], parts[2:]
	uri := "/apis/" + group + "/" + version + "/" + strings.Join(rest, "/")
	if group == "core" {
		group, uri = "", "/api/"+version+"/"+strings.Join(rest, "/")
	}
	ref := map[string]string{"apiGroup": group, "apiVersion": version}
	// As the API server reads a path: namespaces/NS/status and
	// namespaces/NS/finalize are a Namespace's subresources, not a
	// resource in NS.
	nsSub := len(rest) == 3 && (rest[2] == "status" || rest[2] == "finalize")
	if len(rest) >= 3 && rest[0] == "namespaces" && !nsSub {
		ref["namespace"], rest = rest[1], rest[2:]
	}
	ref["resource"] = rest[0]
	if len(rest) > 1 {
		ref["name"] = rest[1]
	}
	if len(rest) > 2 {
		ref["subresource"] = rest[2]
	}
	if ref["resource"] == "namespaces" && ref["name"] != "" {
		ref["namespace"] = ref["name"]
	}
	raw, _ := json.Marshal(ref)
	return raw, uri
}

// refBody turns a request or response of the entry back into an object:
// its @type (core.k8s.io/v1.Pod, meta.k8s.io/__internal.DeleteOptions,
// k8s.io/Patch) says its apiVersion and kind when the body does not. The
// members are copied as written, @type left out.
func refBody(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var t string
	hasKind := false
	var members [][2][]byte // key as written, value as written
	s := scanner{d: raw}
	err := s.object(func(key []byte) error {
		v, err := s.raw()
		switch {
		case err != nil:
			return err
		case string(key) == "@type":
			_ = json.Unmarshal(v, &t) // not a string: no type, as before
			return nil
		case string(key) == "kind":
			hasKind = true
		}
		members = append(members, [2][]byte{key, v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var kind, apiVersion string
	if !hasKind && t != "" && t != "k8s.io/Patch" {
		kind, apiVersion = gkeKind(t)
	}
	return refObjectBytes(members, kind, apiVersion), nil
}

// refObjectBytes writes an object of members, with kind and apiVersion
// first when set (replacing the body's own apiVersion).
func refObjectBytes(members [][2][]byte, kind, apiVersion string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	if kind != "" {
		k, _ := json.Marshal(kind)
		v, _ := json.Marshal(apiVersion)
		b.WriteString(`"kind":`)
		b.Write(k)
		b.WriteString(`,"apiVersion":`)
		b.Write(v)
	}
	for _, m := range members {
		if kind != "" && string(m[0]) == "apiVersion" {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.Write(m[0])
		b.WriteString(`":`)
		b.Write(m[1])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func refFirstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// refNative is the native event the reference rebuilds.
type refNative struct {
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

func refNativeEvent() refNative {
	return refNative{Kind: "Event", APIVersion: "audit.k8s.io/v1", Stage: StageResponseComplete}
}

package audit

import (
	"bytes"
	"encoding/json"
	"strings"
)

// This file rebuilds a native Event from a GKE Cloud Audit Logs entry, as
// `gcloud logging read --format=json|yaml` prints it and a Cloud Storage
// sink writes it (a LogEntry a line): protoPayload.methodName is
// io.k8s.GROUP.VERSION.RESOURCE[.SUB].VERB, resourceName is
// GROUP/VERSION/namespaces/NS/RESOURCE/NAME[/SUB] (the core group spelled
// "core"), authenticationInfo.principalEmail the user, status a
// google.rpc code, operation.id (else insertId) the audit ID.
//
// What it loses (see loss.go): the user's groups, uid and extra, and whom
// a request impersonated; the stages (one entry per request, read as
// ResponseComplete); the HTTP status code (rebuilt from the google.rpc
// code, so 200 and 201 are one); the time the request was received (the
// entry's timestamp is when it was written).

type gkeEntry struct {
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

// gkeEvent rebuilds the native event of a LogEntry.
func gkeEvent(v []byte, acc *accumulator) ([]byte, error) {
	var e gkeEntry
	if err := json.Unmarshal(v, &e); err != nil {
		return nil, notEvent("its protoPayload is not a Cloud Audit Log: " + err.Error())
	}
	p := &e.Proto
	if !strings.HasPrefix(p.Method, "io.k8s.") {
		acc.passed++
		return nil, nil // another service's audit entry, or not one at all
	}
	ev := newNativeEvent()
	ev.AuditID = firstOf(e.Operation.ID, e.InsertID)
	ev.Verb = p.Method[strings.LastIndexByte(p.Method, '.')+1:]
	ev.StageTimestamp = e.Timestamp // when the entry was written: the request's end
	ev.UserAgent = p.Meta.UserAgent
	if p.Meta.IP != "" {
		ev.SourceIPs = []string{p.Meta.IP}
	}
	ev.User, _ = json.Marshal(map[string]string{"username": p.Auth.Principal})
	ev.ObjectRef, ev.RequestURI = gkeObject(p.Name)
	ev.ResponseStatus, _ = json.Marshal(map[string]any{"code": rpcToHTTP(p.Status.Code), "message": p.Status.Message})
	var err error
	if ev.RequestObject, err = gkeBody(p.Request); err != nil {
		return nil, notEvent("its protoPayload's request is not an object: " + err.Error())
	}
	if ev.ResponseObject, err = gkeBody(p.Response); err != nil {
		return nil, notEvent("its protoPayload's response is not an object: " + err.Error())
	}
	ev.Level = levelOf(ev.RequestObject != nil, ev.ResponseObject != nil)
	ev.Annotations = e.Labels
	return json.Marshal(ev)
}

// gkeObject reads a resourceName into an objectRef and a request URI; a
// name of no group and version ("readyz") is a non-resource URL.
func gkeObject(name string) (json.RawMessage, string) {
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

// gkeBody turns a request or response of the entry back into an object:
// its @type (core.k8s.io/v1.Pod, meta.k8s.io/__internal.DeleteOptions,
// k8s.io/Patch) says its apiVersion and kind when the body does not. The
// members are copied as written, @type left out.
func gkeBody(raw json.RawMessage) (json.RawMessage, error) {
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
	return gkeObjectBytes(members, kind, apiVersion), nil
}

// gkeKind is the kind and apiVersion an @type names. GKE spells every
// group with .k8s.io: apps.k8s.io is apps, but rbac.authorization.k8s.io
// is itself.
func gkeKind(t string) (kind, apiVersion string) {
	slash := max(strings.LastIndexByte(t, '/'), 0)
	gv, kind, _ := strings.Cut(t[slash+1:], ".")
	group := t[:slash]
	if g := strings.TrimSuffix(group, ".k8s.io"); !strings.Contains(g, ".") {
		group = g
	}
	if group == "core" || group == "meta" || group == "" {
		return kind, gv
	}
	return kind, group + "/" + gv
}

// gkeObjectBytes writes an object of members, with kind and apiVersion
// first when set (replacing the body's own apiVersion).
func gkeObjectBytes(members [][2][]byte, kind, apiVersion string) json.RawMessage {
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

// levelOf is the audit level an event's bodies show it was logged at.
func levelOf(request, response bool) string {
	switch {
	case response:
		return LevelRequestResponse
	case request:
		return LevelRequest
	}
	return LevelMetadata
}

// rpcToHTTP maps a google.rpc code to the HTTP status the API server
// answered, as google.rpc's own mapping does (code.proto).
func rpcToHTTP(code int) int {
	switch code {
	case 0:
		return 200
	case 1:
		return 499
	case 3, 9, 11:
		return 400
	case 4:
		return 504
	case 5:
		return 404
	case 6, 10:
		return 409
	case 7:
		return 403
	case 8:
		return 429
	case 12:
		return 501
	case 14:
		return 503
	case 16:
		return 401
	}
	return 500
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

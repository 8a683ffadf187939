package gen

import (
	"encoding/json"
	"strconv"
	"time"
)

// event is one request as the kube-apiserver logs it.
type event struct {
	level, verb, uri string
	user             string
	groups           []string
	agent            string
	ref              ref
	code             int
	reason           string
	request          string // raw JSON, at Request level and above
	response         string // raw JSON, at RequestResponse level
	// received marks a request logged at RequestReceived too.
	received bool
}

type ref struct {
	resource, namespace, name, uid, group, version, subresource string
}

var (
	humans        = []string{"alice", "bob", "carol", "dave"}
	humanGroups   = []string{"system:authenticated", "oidc:sre"}
	saGroups      = []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}
	nodeGroups    = []string{"system:nodes", "system:authenticated"}
	kubectlAgent  = "kubectl/v1.36.3 (linux/amd64) kubernetes/5b3c1f5"
	kcmAgent      = "kube-controller-manager/v1.36.3 (linux/amd64) kubernetes/5b3c1f5/system:serviceaccount:kube-system:"
	kubeletAgent  = "kubelet/v1.36.3 (linux/amd64) kubernetes/5b3c1f5"
	canonicalTime = "2006-01-02T15:04:05.000000Z07:00"
)

// controller is a kube-controller-manager controller's identity.
func controller(name string) (user string, groups []string, agent string) {
	return "system:serviceaccount:kube-system:" + name, saGroups, kcmAgent + name
}

// emit writes ev as one line per stage, RequestReceived first when asked.
func (g *generator) emit(ev event) {
	if g.err != nil || g.left <= 0 {
		return
	}
	g.tick()
	id, start := g.auditID(), g.now
	end := start.Add(time.Duration(200+g.rnd.IntN(20000)) * time.Microsecond)
	if ev.received && g.left > 1 {
		g.write(&ev, id, "RequestReceived", start, start)
	}
	g.write(&ev, id, "ResponseComplete", start, end)
	switch ev.verb {
	case "delete", "deletecollection":
		g.stats.Deletes++
	case "create", "update", "patch":
		g.stats.Writes++
	}
}

func (g *generator) write(ev *event, id, stage string, received, at time.Time) {
	b := g.line[:0]
	b = append(b, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":`...)
	b = appendString(b, ev.level)
	b = appendKV(b, "auditID", id)
	b = appendKV(b, "stage", stage)
	b = appendKV(b, "requestURI", ev.uri)
	b = appendKV(b, "verb", ev.verb)
	b = append(b, `,"user":{"username":`...)
	b = appendString(b, ev.user)
	b = append(b, `,"groups":`...)
	b = appendList(b, ev.groups)
	b = append(b, `},"sourceIPs":["10.0.`...)
	b = strconv.AppendInt(b, int64(len(ev.user)%7), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(len(ev.uri)%250), 10)
	b = append(b, `"]`...)
	b = appendKV(b, "userAgent", ev.agent)
	b = appendRef(b, &ev.ref)
	if stage != "RequestReceived" {
		b = appendStatus(b, ev.code, ev.reason)
		b = appendRaw(b, "requestObject", ev.request)
		b = appendRaw(b, "responseObject", ev.response)
	}
	b = appendKV(b, "requestReceivedTimestamp", received.Format(canonicalTime))
	b = appendKV(b, "stageTimestamp", at.Format(canonicalTime))
	b = append(b, `,"annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"RBAC: allowed by ClusterRoleBinding \"system:controller\" of ClusterRole \"admin\" to User \"`...)
	b = append(b, ev.user...)
	b = append(b, "\\\"\"}}\n"...)
	g.line = b
	n, err := g.out.Write(b)
	g.stats.Bytes += int64(n)
	g.stats.Events++
	g.left--
	if err != nil {
		g.err = err
	}
}

func appendKV(b []byte, k, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

// appendString appends s quoted as the kube-apiserver's encoding/json
// writes it: <, > and & escaped (\u003c, \u003e, \u0026), as in every
// requestURI with a query. The exports then hold what real ones hold:
// those escapes with their backslash escaped again.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendList(b []byte, l []string) []byte {
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

func appendRef(b []byte, r *ref) []byte {
	if r.resource == "" {
		return b
	}
	b = append(b, `,"objectRef":{"resource":`...)
	b = appendString(b, r.resource)
	for _, kv := range [][2]string{{"namespace", r.namespace}, {"name", r.name}, {"uid", r.uid}, {"apiGroup", r.group}, {"apiVersion", r.version}, {"subresource", r.subresource}} {
		if kv[1] != "" {
			b = appendKV(b, kv[0], kv[1])
		}
	}
	return append(b, '}')
}

func appendStatus(b []byte, code int, reason string) []byte {
	b = append(b, `,"responseStatus":{"metadata":{}`...)
	if reason != "" {
		b = appendKV(b, "status", "Failure")
		b = appendKV(b, "message", reason)
		b = appendKV(b, "reason", "NotFound")
	}
	b = append(b, `,"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	return append(b, '}')
}

func appendRaw(b []byte, k, raw string) []byte {
	if raw == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, k...)
	b = append(b, '"', ':')
	return append(b, raw...)
}

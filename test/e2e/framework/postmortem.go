package framework

import (
	"strings"
)

// Actor names kgc postmortem gives the user a request came from
// (docs/output-contract.md, PostMortem): the controllers by their service
// account, kubelets by their node identity, the API server by itself.
func Actor(user string) string {
	const sa = "system:serviceaccount:kube-system:"
	switch {
	case user == sa+"generic-garbage-collector":
		return "garbagecollector"
	case user == sa+"namespace-controller":
		return "namespace-controller"
	case strings.HasPrefix(user, "system:node:"):
		return "kubelet"
	case user == "system:apiserver":
		return "apiserver"
	case strings.HasPrefix(user, sa):
		return strings.TrimPrefix(user, sa)
	}
	return "user"
}

// Removal is what the audit log says happened to one object: the
// successful DELETEs naming it, in order, by whom. It is the tests' own
// reading of the log, to hold kgc's against.
type Removal struct {
	// Deletes are the effective users of the successful DELETEs naming
	// the object (the first marks it deleting or removes it; a pod's last
	// is often its node's).
	Deletes []string
	// Collection is the user of a successful deletecollection of the
	// object's resource in its namespace, when no DELETE names it.
	Collection string
}

// FirstActor is who started the object's removal, by kgc's actor names:
// the first DELETE naming it, else the deletecollection that took it.
func (r Removal) FirstActor() string {
	if len(r.Deletes) > 0 {
		return Actor(r.Deletes[0])
	}
	if r.Collection != "" {
		return Actor(r.Collection)
	}
	return ""
}

// Removals reads, from events, the removal of each object of states
// (keyed by UID), by its resource, namespace and name: DELETEs and
// deletecollections that succeeded (2xx), at their last stage.
func Removals(events []AuditEvent, states map[string]ObjState) map[string]Removal {
	type key struct{ group, resource, ns, name string }
	byKey := map[key]string{}
	for uid, s := range states {
		byKey[key{s.GVR.Group, s.GVR.Resource, s.Namespace, s.Name}] = uid
	}
	out := map[string]Removal{}
	collections := map[key]string{} // name empty: a resource in a namespace
	for _, e := range events {
		if e.ObjectRef == nil || e.ObjectRef.Subresource != "" || e.ResponseStatus == nil ||
			e.ResponseStatus.Code < 200 || e.ResponseStatus.Code > 299 || e.Stage != "ResponseComplete" {
			continue
		}
		k := key{e.ObjectRef.APIGroup, e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name}
		switch e.Verb {
		case "delete":
			if uid, ok := byKey[k]; ok {
				r := out[uid]
				r.Deletes = append(r.Deletes, e.Actor())
				out[uid] = r
			}
		case "deletecollection":
			k.name = ""
			if _, seen := collections[k]; !seen {
				collections[k] = e.Actor()
			}
		}
	}
	for k, uid := range byKey {
		r := out[uid]
		if len(r.Deletes) == 0 {
			r.Collection = collections[key{k.group, k.resource, k.ns, ""}]
			if r.Collection != "" {
				out[uid] = r
			}
		}
	}
	return out
}

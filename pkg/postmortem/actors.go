package postmortem

import (
	"strings"

	"github.com/kgc-dev/kgc/pkg/audit"
	"github.com/kgc-dev/kgc/pkg/rules"
)

// The actors a post-mortem names (docs/output-contract.md: a request's,
// a link's and a step's actor). Those the plan's steps and the diagnoses
// name too are rules' names. The first four only ever carry out a
// deletion someone else started, or one the collector's rules start: a
// post-mortem follows them up to who started it.
const (
	ActorGarbageCollector    = rules.ActorGC
	ActorNamespaceController = rules.ActorNamespace
	ActorKubelet             = rules.ActorKubelet
	ActorAPIServer           = rules.ActorAPIServer
	// ActorUser is a person or an outside client.
	ActorUser = "user"
	// ActorControllerManager is kube-controller-manager running without
	// --use-service-account-credentials: every controller shares one
	// identity, so which one acted is a judgement, not a fact.
	ActorControllerManager = "kube-controller-manager"
)

const serviceAccountPrefix = "system:serviceaccount:kube-system:"

// actor names who sent a request: a controller by its service account, a
// kubelet by its node identity, anyone else as a user. An impersonated
// request acted as the impersonated user.
func actor(e *audit.Event) string {
	u := e.User.Username
	if e.ImpersonatedUser != nil && e.ImpersonatedUser.Username != "" {
		u = e.ImpersonatedUser.Username
	}
	switch {
	case u == audit.GarbageCollectorUser:
		return ActorGarbageCollector
	case u == serviceAccountPrefix+"namespace-controller":
		return ActorNamespaceController
	case strings.HasPrefix(u, "system:node:"):
		return ActorKubelet
	case u == "system:apiserver":
		return ActorAPIServer
	case u == "system:kube-controller-manager":
		return ActorControllerManager
	case strings.HasPrefix(u, serviceAccountPrefix) && strings.HasSuffix(u, "-controller"):
		return strings.TrimPrefix(u, serviceAccountPrefix)
	}
	return ActorUser
}

// userOf is the name a request acted as.
func userOf(e *audit.Event) string {
	if e.ImpersonatedUser != nil && e.ImpersonatedUser.Username != "" {
		return e.ImpersonatedUser.Username
	}
	return e.User.Username
}

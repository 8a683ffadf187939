// This file mirrors pkg/controller/garbagecollector/errors.go of
// k8s.io/kubernetes v1.36.3 (restMappingError), with the marker errors
// upstream declares in garbagecollector.go and kgc's own for what a
// snapshot cannot tell.

package plan

import (
	"errors"
	"fmt"
)

// The workers' marker errors: an item that returns one is forgotten, not
// retried (attemptToDeleteWorker). Their names are upstream's
// (garbagecollector.go); errNotObserved is kgc's reason for requeueing a
// virtual node, which upstream only logs.
var (
	enqueuedVirtualDeleteEventErr           = errors.New("enqueued virtual delete event")                      //nolint:staticcheck // upstream's name, kept to read side by side
	namespacedOwnerOfClusterScopedObjectErr = errors.New("cluster-scoped object refers to a namespaced owner") //nolint:staticcheck // upstream's name, kept to read side by side
	errNotObserved                          = errors.New("owner not yet observed by an informer")
)

// restMappingError follows its namesake (errors.go): a kind the REST
// mapper cannot map, retried for ever.
type restMappingError struct{ kind, apiVersion string }

func (e *restMappingError) Error() string {
	return fmt.Sprintf("unable to get REST mapping for %s/%s", e.apiVersion, e.kind)
}

// newRESTMappingError follows its namesake (errors.go).
func newRESTMappingError(kind, apiVersion string) *restMappingError {
	return &restMappingError{kind, apiVersion}
}

// unknownTypeError is kgc's: the object's type could not be listed, so a
// GET the real collector would answer cannot be answered from the
// snapshot. The plan is then incomplete rather than wrong.
type unknownTypeError struct{ kind, apiVersion string }

func (e *unknownTypeError) Error() string {
	return fmt.Sprintf("%s/%s could not be listed when the snapshot was taken, so whether the object exists is unknown", e.apiVersion, e.kind)
}

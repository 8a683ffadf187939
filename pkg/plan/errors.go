// This file mirrors pkg/controller/garbagecollector/errors.go of
// k8s.io/kubernetes v1.36.3 (restMappingError), with the marker errors
// upstream declares in garbagecollector.go and kgc's own for what a
// snapshot cannot tell.

package plan

import (
	"errors"
	"fmt"
)

var (
	enqueuedVirtualDeleteEventErr           = errors.New("enqueued virtual delete event")
	namespacedOwnerOfClusterScopedObjectErr = errors.New("cluster-scoped object refers to a namespaced owner")
	errNotObserved                          = errors.New("owner not yet observed by an informer")
)

type restMappingError struct{ kind, apiVersion string }

func (e *restMappingError) Error() string {
	return fmt.Sprintf("unable to get REST mapping for %s/%s", e.apiVersion, e.kind)
}

func newRESTMappingError(kind, apiVersion string) *restMappingError {
	return &restMappingError{kind, apiVersion}
}

type unknownTypeError struct{ kind, apiVersion string }

func (e *unknownTypeError) Error() string {
	return fmt.Sprintf("%s/%s could not be listed when the snapshot was taken, so whether the object exists is unknown", e.apiVersion, e.kind)
}

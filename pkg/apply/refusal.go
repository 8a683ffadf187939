package apply

import (
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

func refString(r snapshot.ObjectRef) string { return r.String() }

func refuse(reason, format string, a ...any) *report.Refusal {
	return &report.Refusal{Reason: reason, Message: fmt.Sprintf(format, a...)}
}

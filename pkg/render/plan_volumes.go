package render

import (
	"bufio"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kgc-dev/kgc/internal/words"
	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// planStorageCounts adds to the summary line what the plan destroys
// outside the cluster, and the volumes whose storage it leaves behind;
// nothing when no volume is released, so other plans read as before.
func planStorageCounts(bw *bufio.Writer, s plan.Summary, st Style) {
	if s.VolumesDestroyed > 0 {
		fmt.Fprintf(bw, ", %s destroyed", st.Paint(Red, words.Count(s.VolumesDestroyed, "volume")))
		if s.BytesDestroyed > 0 {
			fmt.Fprintf(bw, " (%s)", resource.NewQuantity(s.BytesDestroyed, resource.BinarySI).String())
		}
	}
	if s.VolumesKept > 0 {
		fmt.Fprintf(bw, ", %s kept", words.Count(s.VolumesKept, "volume"))
	}
	if s.VolumesNotReclaimed > 0 {
		fmt.Fprintf(bw, ", %s not reclaimed", st.Paint(Yellow, words.Count(s.VolumesNotReclaimed, "volume")))
	}
	if n := s.VolumesDestroyedIfRuns; n > 0 {
		fmt.Fprintf(bw, ", %s destroyed if %s provisioner runs", st.Paint(Red, words.Count(n, "volume")), words.Agree(n, "its", "their"))
	}
}

// planVolumes says, for each PersistentVolume the plan releases, what
// becomes of the storage behind it and, when it stays, how to reclaim it.
func planVolumes(bw *bufio.Writer, p *plan.Plan, st Style) {
	first := true
	for _, of := range p.Objects {
		v := of.Volume
		if v == nil {
			continue
		}
		if first {
			fmt.Fprintf(bw, "\n%s\n", st.Paint(Bold, "Volumes (storage outside the cluster):"))
			first = false
		}
		size := ""
		if v.Capacity != "" {
			size = " " + v.Capacity
		}
		fmt.Fprintf(bw, "  %s %s%s, claim %s: %s\n", storageSpan(v.Storage, st), of.Object, size, claimText(v), v.Reason)
		if v.Reclaim != "" {
			fmt.Fprintf(bw, "      to reclaim it: %s\n", v.Reclaim)
		}
	}
}

func storageSpan(s string, st Style) string {
	switch s {
	case "destroyed":
		return st.Paint(Red, s)
	case "not-reclaimed":
		return st.Paint(Yellow, s)
	case "destroyed-if-provisioner-runs":
		return st.Paint(Red, "destroyed if its provisioner runs (not in the input):")
	}
	return s
}

func claimText(v *plan.VolumeFate) string {
	if v.Claim == nil {
		return "none"
	}
	return snapshot.KubectlName("PersistentVolumeClaim", v.Claim.Namespace, v.Claim.Name)
}

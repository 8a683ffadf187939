package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/kgc-dev/kgc/pkg/rules"
	"github.com/kgc-dev/kgc/pkg/snapshot"
	"github.com/kgc-dev/kgc/pkg/snapshot/testobj"
)

// TestForegroundLoopWithRecreatedDependent: an operator that reconciles
// its resource while it is deleted in the foreground recreates the
// dependent the collector deletes; the owner waits for ever. Modelled on
// ClickHouse/clickhouse-operator#309 (a StatefulSet "perpetually 1 second
// old" two hours into a foreground delete), open-telemetry/
// opentelemetry-operator#2364 and dragonflydb/dragonfly-operator#408. The
// root cause is the loop and who recreates, never a stalled collector.
func TestForegroundLoopWithRecreatedDependent(t *testing.T) {
	yes := true
	owner := testobj.New("clickhouse.com/v1alpha1", "ClickHouseCluster", "db", "clickhouse").UID("chc").
		Deleting(ago(2 * time.Hour)).Finalizers(rules.FinalizerForeground).Build()
	ref := snapshot.OwnerReference{APIVersion: owner.APIVersion, Kind: owner.Kind, Name: owner.Metadata.Name, UID: owner.Metadata.UID, Controller: &yes, BlockOwnerDeletion: &yes}
	fresh := testobj.StatefulSet("db", "clickhouse").UID("sts-new").Owner(ref).Build()
	created := ago(time.Second)
	fresh.Metadata.CreationTimestamp = &created
	old := testobj.StatefulSet("db", "clickhouse").UID("sts-old").Owner(ref).Build()
	before := ago(3 * time.Hour)
	old.Metadata.CreationTimestamp = &before

	t.Run("created after the owner's deletion", func(t *testing.T) {
		d, err := New(testobj.Snapshot(owner, fresh).Build(), nil, Options{}).Diagnose(owner.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		rc := rootCause(t, d, ReasonDependentRecreated)
		for _, want := range []string{"StatefulSet/clickhouse -n db was created at", "after ClickHouseCluster/clickhouse -n db's foreground deletion began",
			"the controller of ClickHouseCluster does not stop for the deletion", "this is a loop"} {
			if !strings.Contains(rc.Message, want) {
				t.Errorf("message %q lacks %q", rc.Message, want)
			}
		}
		for _, x := range d.RootCauses {
			if x.Reason == ReasonControllerStalled {
				t.Errorf("a stalled collector is blamed: %s", x.Message)
			}
		}
		background := false
		for _, r := range rc.Remedies {
			background = background || r.Action == ActionRemoveFinalizer && strings.Contains(r.Command, "foregroundDeletion") && strings.Contains(r.Command, "clickhouseclusters")
		}
		if rc.Remedies[0].Action != ActionFixController || !strings.Contains(rc.Remedies[0].Description, "Stop what recreates it") || !background {
			t.Errorf("remedies %s (%+v): want stopping the controller first, and finishing the owner in the background", remedyActions(rc.Remedies), rc.Remedies)
		}
	})
	t.Run("its managedFields name the manager that recreates it", func(t *testing.T) {
		byOperator := fresh
		byOperator.Metadata.Manager = "clickhouse-operator"
		d, err := New(testobj.Snapshot(owner, byOperator).Build(), nil, Options{}).Diagnose(owner.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		rc := rootCause(t, d, ReasonDependentRecreated)
		if want := `the controller of ClickHouseCluster, managedFields manager "clickhouse-operator"`; rc.Controller != want || !strings.Contains(rc.Message, want+", does not stop") ||
			!strings.Contains(rc.Remedies[0].Description, "pause "+want+" (or upgrade") {
			t.Errorf("controller %q, message %q, first remedy %q: want the manager named", rc.Controller, rc.Message, rc.Remedies[0].Description)
		}
	})
	t.Run("created before: the collector is stalled", func(t *testing.T) {
		d, err := New(testobj.Snapshot(owner, old).Build(), nil, Options{}).Diagnose(owner.Metadata.UID)
		if err != nil {
			t.Fatal(err)
		}
		rootCause(t, d, ReasonControllerStalled)
	})
}

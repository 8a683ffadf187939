package apply

import (
	"context"
	"fmt"
	"github.com/kgc-dev/kgc/pkg/apply/report"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kgc-dev/kgc/pkg/plan"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// backupNote says what no backup gives back: a person restoring from it
// needs to know before relying on it.
const backupNote = "the backup restores content, not identity: objects re-created from it get new UIDs, " +
	"owner references to deleted owners must be rewritten, a volume's data is not in it, " +
	"and it holds the objects in full (Secret data included): keep it as safe as the cluster"

// backup writes every object the plan may delete (alternatives included)
// to dir, as kubectl get -o yaml shows it without managedFields, before
// anything is sent. Any failure stops the apply: a backup that silently
// lacks an object is worse than none.
func (a *Applier) backup(ctx context.Context, p *plan.Plan, dir string) (*report.Backup, error) {
	b := &report.Backup{Dir: dir, Files: []string{}}
	for _, of := range p.Objects {
		if !of.MayBeDeleted() {
			continue
		}
		obj, err := a.Cluster.Get(ctx, of.Object)
		if err != nil {
			return b, refuse(report.ReasonBackup, "cannot back up %s: %v; nothing was deleted", refString(of.Object), err)
		}
		name, err := writeBackup(dir, of.Object, obj)
		if err != nil {
			return b, refuse(report.ReasonBackup, "cannot write the backup of %s: %v; nothing was deleted", refString(of.Object), err)
		}
		b.Files = append(b.Files, name)
	}
	return b, nil
}

// writeBackup writes obj to dir/NAMESPACE/KIND[.GROUP]_NAME.yaml
// (_cluster for cluster-scoped objects), readable by its owner only.
func writeBackup(dir string, ref snapshot.ObjectRef, obj map[string]any) (string, error) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	data, err := yaml.Marshal(obj)
	if err != nil {
		return "", err
	}
	ns := ref.Namespace
	if ns == "" {
		ns = "_cluster"
	}
	kind := strings.ToLower(ref.Kind)
	if g := snapshot.GroupOf(ref.APIVersion); g != "" {
		kind += "." + g
	}
	name := filepath.Join(ns, kind+"_"+ref.Name+".yaml")
	if err := os.MkdirAll(filepath.Join(dir, ns), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		return "", fmt.Errorf("writing %s: %w", name, err)
	}
	return name, nil
}

package snapshotio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kgc-dev/kgc/internal/jsonskip"
	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// This file reads a workload's spec and status down to its facts (the
// pod template skipped but for its labels), a Job's counts, and whether
// a workload's selector selects labels, on raw bytes.

// workloadSpec scans a workload's spec by hand, as podSpec does: its pod
// template is skipped unread but for its labels (and, for a DaemonSet,
// where it runs), so that big dumps full of ReplicaSets stay cheap. A
// CronJob's template is a Job template: only suspend is read.
func (x *Extractor) workloadSpec(raw []byte, kind string) (*snapshot.Facts, error) {
	// One allocation for the facts, their workload and its replica count:
	// big dumps hold many ReplicaSets.
	block := &struct {
		f snapshot.Facts
		w snapshot.WorkloadFacts
		n int32
	}{}
	w := &block.w
	ws := workloadScan{w: w, kind: kind, rc: kind == "ReplicationController"}
	x.sel, x.tpl = x.sel[:0], x.tpl[:0]
	s := scanner{d: raw}
	if err := s.object(func(key []byte) error { return x.workloadField(&s, key, &ws) }); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	block.f.Workload = w
	if kind == "CronJob" {
		*w = snapshot.WorkloadFacts{Suspend: w.Suspend}
		return &block.f, nil
	}
	if kind != "DaemonSet" {
		block.n = 1 // defaulted by the API server
		if ws.hasReplicas {
			block.n = int32(ws.replicas)
		}
		w.Replicas = &block.n
	}
	if ws.dsTemplate != nil {
		if err := daemonSetPlacement(ws.dsTemplate, w); err != nil {
			return nil, err
		}
	}
	w.SelectorMatchesTemplate = selectorMatches(ws.selSet, ws.rc, x.sel, ws.exprs, x.tpl)
	return &block.f, nil
}

// workloadScan is what workloadSpec gathers while it scans a spec, beside
// the facts themselves: the selector's and template's labels go to the
// extractor's scratch (x.sel, x.tpl).
type workloadScan struct {
	w                 *snapshot.WorkloadFacts
	kind              string
	rc                bool // a ReplicationController's selector is a plain map
	replicas          int64
	hasReplicas       bool
	selSet            bool
	exprs, dsTemplate []byte
}

// workloadField reads the spec field key of a workload.
func (x *Extractor) workloadField(s *scanner, key []byte, ws *workloadScan) error {
	var err error
	switch string(key) {
	case "replicas":
		ws.replicas, ws.hasReplicas, err = s.int64v()
	case "paused":
		var b *bool
		b, err = s.boolp()
		ws.w.Paused = b != nil && *b
	case "suspend":
		var b *bool
		b, err = s.boolp()
		ws.w.Suspend = b != nil && *b
	case "ordinals":
		err = s.object(func(k []byte) error {
			if string(k) != "start" {
				return s.skip()
			}
			v, _, err := s.int64v()
			ws.w.OrdinalsStart = int32(v)
			return err
		})
	case "selector":
		err = x.workloadSelector(s, ws)
	case "template":
		err = x.workloadTemplate(s, ws)
	default:
		err = s.skip()
	}
	return err
}

// workloadSelector reads a workload's spec.selector into x.sel (and its
// matchExpressions, kept raw).
func (x *Extractor) workloadSelector(s *scanner, ws *workloadScan) error {
	if s.isNull() {
		return nil
	}
	ws.selSet = true
	if ws.rc {
		var err error
		x.sel, err = labelPairs(s, x.sel)
		return err
	}
	return s.object(func(k []byte) error {
		var err error
		switch string(k) {
		case "matchLabels":
			x.sel, err = labelPairs(s, x.sel)
		case "matchExpressions":
			ws.exprs, err = s.raw()
		default:
			err = s.skip()
		}
		return err
	})
}

// workloadTemplate reads a workload's pod template: its labels into
// x.tpl, its service account, and a DaemonSet's pod spec kept raw for
// daemonSetPlacement.
func (x *Extractor) workloadTemplate(s *scanner, ws *workloadScan) error {
	if ws.kind == "CronJob" {
		return s.skip()
	}
	return s.object(func(k []byte) error {
		switch string(k) {
		case "metadata":
			return s.object(func(k2 []byte) error {
				if string(k2) != "labels" {
					return s.skip()
				}
				var err error
				x.tpl, err = labelPairs(s, x.tpl)
				return err
			})
		case "spec":
			if ws.kind == "DaemonSet" {
				var err error
				ws.dsTemplate, err = s.raw()
				return err
			}
			return s.object(func(k2 []byte) error {
				if string(k2) != "serviceAccountName" {
					return s.skip()
				}
				var err error
				ws.w.ServiceAccount, err = s.internStr(x.in)
				return err
			})
		}
		return s.skip()
	})
}

// daemonSetPlacement reads where a DaemonSet's pods run (node selector,
// tolerations, whether it has node affinity) and its service account
// from its pod template's spec.
func daemonSetPlacement(raw []byte, w *snapshot.WorkloadFacts) error {
	var v struct {
		NodeSelector       map[string]string
		Tolerations        []struct{ Key, Operator, Effect string }
		Affinity           *struct{ NodeAffinity json.RawMessage }
		ServiceAccountName string
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("spec.template.spec: %w", err)
	}
	w.NodeSelector = v.NodeSelector
	w.ServiceAccount = v.ServiceAccountName
	for _, t := range v.Tolerations {
		if t.Operator == "Exists" && t.Key == "" {
			w.Tolerations = append(w.Tolerations, ":"+t.Effect)
			continue
		}
		w.Tolerations = append(w.Tolerations, t.Key+":"+t.Effect)
	}
	w.NodeAffinity = v.Affinity != nil && len(v.Affinity.NodeAffinity) > 0 && string(v.Affinity.NodeAffinity) != "null"
	return nil
}

// workloadAvailable reads how many pods of a Deployment, StatefulSet or
// DaemonSet are available from its status; nil without a status (and for
// the other workload kinds, which run no controller).
func workloadAvailable(status []byte, group, kind string) (*int32, error) {
	if status == nil || group != "apps" || kind == "ReplicaSet" {
		return nil, nil
	}
	var v struct {
		AvailableReplicas, NumberAvailable int32
	}
	if err := json.Unmarshal(status, &v); err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	n := v.AvailableReplicas
	if kind == "DaemonSet" {
		n = v.NumberAvailable
	}
	return &n, nil
}

// selectorMatches reports whether a workload's selector selects labels:
// a ReplicationController's map (unset or empty: defaulted to the
// template's labels), or a metav1.LabelSelector's matchLabels and
// matchExpressions (unset or empty selects nothing for these kinds, and
// is rejected by validation). It compares raw bytes: no allocation for
// the common selector of matchLabels only.
func selectorMatches(set, rc bool, matchLabels []labelPair, exprs []byte, labels []labelPair) bool {
	if rc && len(matchLabels) == 0 {
		return len(labels) > 0
	}
	hasExprs := len(bytes.TrimSpace(exprs)) > 2 // more than "[]"
	if !set || len(matchLabels) == 0 && !hasExprs {
		return false
	}
	for _, m := range matchLabels {
		if lv, ok := lookupLabel(labels, m.k); !ok || !bytes.Equal(lv, m.v) {
			return false
		}
	}
	return !hasExprs || expressionsMatch(exprs, labels)
}

func lookupLabel(labels []labelPair, k []byte) ([]byte, bool) {
	for _, l := range labels {
		if bytes.Equal(l.k, k) {
			return l.v, true
		}
	}
	return nil, false
}

// expressionsMatch evaluates matchExpressions (rare: decoded with
// encoding/json).
func expressionsMatch(exprs []byte, labels []labelPair) bool {
	var ex []struct {
		Key, Operator string
		Values        []string
	}
	if json.Unmarshal(exprs, &ex) != nil {
		return false
	}
	for _, e := range ex {
		lv, ok := lookupLabel(labels, []byte(e.Key))
		in := ok && slices.Contains(e.Values, string(lv))
		switch e.Operator {
		case "In":
			if !in {
				return false
			}
		case "NotIn":
			if in {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		case "DoesNotExist":
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// jobSpec scans the counts of a Job's spec, skipping its template.
func (x *Extractor) jobSpec(raw []byte, j *snapshot.JobFacts) error {
	if raw == nil {
		return nil
	}
	i32 := func(s *scanner) (*int32, error) {
		v, ok, err := s.int64v()
		if !ok || err != nil {
			return nil, err
		}
		n := int32(v)
		return &n, nil
	}
	s := scanner{d: raw}
	err := s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "suspend":
			var b *bool
			b, err = s.boolp()
			j.Suspend = b != nil && *b
		case "completions":
			j.Completions, err = i32(&s)
		case "parallelism":
			j.Parallelism, err = i32(&s)
		case "backoffLimit":
			j.BackoffLimit, err = i32(&s)
		default:
			err = s.skip()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	return nil
}

// labelPairs appends the labels of an object value to dst as raw bytes,
// decoding only the rare escaped value.
func labelPairs(s *scanner, dst []labelPair) ([]labelPair, error) {
	err := s.object(func(k []byte) error {
		start := s.i
		v, esc, err := s.strBytes()
		if err == nil && esc {
			var u string
			u, err = unescape(s.d[jsonskip.Space(s.d, start):s.i])
			v = []byte(u)
		}
		dst = append(dst, labelPair{k, v})
		return err
	})
	return dst, err
}

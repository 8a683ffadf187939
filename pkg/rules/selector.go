package rules

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// SelectorMatches applies sel to a set of labels as the API server does
// (metav1.LabelSelectorAsSelector): nil selects everything. ok is false
// when the selector cannot be parsed, and then kgc cannot tell.
func SelectorMatches(sel *snapshot.LabelSelector, set map[string]string) (match, ok bool) {
	if sel == nil {
		return true, true
	}
	ls := &metav1.LabelSelector{MatchLabels: sel.MatchLabels}
	for _, e := range sel.MatchExpressions {
		ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key, Operator: metav1.LabelSelectorOperator(e.Operator), Values: e.Values})
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return false, false
	}
	return s.Matches(labels.Set(set)), true
}

// Package words writes the counted parts of kgc's sentences the same way
// in every command: a number with its noun ("1 pod", "2 pods"), a verb that
// agrees with it ("remains", "remain") and an age ("2h18m"). Generated
// sentences are read by people under pressure; "1 instance(s) remain" makes
// them stop and parse.
package words

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// Count is n and the noun, plural unless n is 1: Count(2, "pod") is
// "2 pods", Count(1, "EndpointSlice") "1 EndpointSlice". Only the last word
// of a noun phrase is made plural ("2 root causes").
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %s", n, Plural(noun))
}

// Agree returns one when n is 1 and many otherwise, for the verb or the
// pronoun that goes with a count: "1 pod remains", "2 pods remain".
func Agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// uncountable are Kubernetes kinds whose singular is already plural.
var uncountable = map[string]bool{"Endpoints": true, "endpoints": true}

// Plural is the English plural of a noun phrase's last word, keeping its
// case: pod → pods, StorageClass → StorageClasses, NetworkPolicy →
// NetworkPolicies, PVC → PVCs, Endpoints → Endpoints.
func Plural(noun string) string {
	head, last := "", noun
	if i := strings.LastIndexByte(noun, ' '); i >= 0 {
		head, last = noun[:i+1], noun[i+1:]
	}
	return head + pluralWord(last)
}

func pluralWord(w string) string {
	if w == "" || uncountable[w] {
		return w
	}
	if w == strings.ToUpper(w) {
		return w + "s" // an acronym: PVCs
	}
	lower := strings.ToLower(w)
	for _, end := range []string{"s", "x", "z", "ch", "sh"} {
		if strings.HasSuffix(lower, end) {
			return w + "es"
		}
	}
	if len(lower) > 1 && lower[len(lower)-1] == 'y' && !strings.ContainsRune("aeiou", rune(lower[len(lower)-2])) {
		return w[:len(w)-1] + "ies"
	}
	return w + "s"
}

// Age writes a duration as kubectl's AGE column does
// (apimachinery's duration.HumanDuration, which kubectl get calls): two or
// three significant figures, so 90s, 5m30s, 138m, 5h12m, 30h, 3d10h, 45d.
// The sign is dropped: the sentence around it says whether it is past or
// to come.
func Age(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	return duration.HumanDuration(d)
}

package snapshot

import "strings"

// SplitAPIVersion splits an apiVersion into its group and version: "v1" is
// the core group's, "apps/v1" is ("apps", "v1"). It is the one split of the
// code base, and it follows apimachinery's ParseGroupVersion: the group
// ends at the first slash. An apiVersion with more than one slash, which
// ParseGroupVersion rejects, keeps the rest in the version, which then
// matches no served version, so such a reference never maps, as upstream.
func SplitAPIVersion(apiVersion string) (group, version string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}

// GroupOf is the group of an apiVersion ("" for the core group).
func GroupOf(apiVersion string) string {
	g, _ := SplitAPIVersion(apiVersion)
	return g
}

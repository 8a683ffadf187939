package audit

import "fmt"

// This file says, per file, what the form it was read in loses compared
// with the kube-apiserver's own log, and what that costs a post-mortem.

// lost is what a file's records showed they lack.
type lost uint8

const (
	// lostReads: AKS's kube-audit-admin category logs no get, list or
	// watch.
	lostReads lost = 1 << iota
)

// insightsLimit is the most rows a CloudWatch Logs Insights query returns.
const insightsLimit = 10000

// lossWarnings are the warnings of what reading path in its forms lost.
func lossWarnings(path string, a *accumulator, forced Family) []string {
	var out []string
	fs := a.forms
	if fs.has(formGKE) {
		out = append(out, fmt.Sprintf("%s holds GKE Cloud Audit Logs entries, which keep no user groups, no impersonated user, no stages, no HTTP status codes and no receive times: kgc names each request's principal only, rebuilds its code from the google.rpc status (200 and 201 are one; a denied or failed request is still told apart), and orders requests by when they ended, so a chain tied by the order of requests that overlapped in the API server can break and leave its objects unexplained", path))
	}
	if fs&forms(formEKSCloudWatch|formEKSInsightsJSON|formEKSInsightsCSV|formEKSSubscription|formEKSS3Export) != 0 {
		out = append(out, fmt.Sprintf("%s comes from CloudWatch Logs, which orders and pages log events by millisecond timestamps: an export cut by time can miss the events that share its first or last millisecond, so a request at the window's edge may be absent (kgc orders events by their own microsecond stageTimestamp)", path))
	}
	if a.insightsRows == insightsLimit {
		out = append(out, fmt.Sprintf("%s holds %d Logs Insights rows, the most one query returns: the results were most likely cut; query a shorter time range, or export with aws logs filter-log-events", path, insightsLimit))
	}
	if a.skippedBodies > 0 {
		out = append(out, fmt.Sprintf("%d request or response bodies in %s are AKS's %q, written in place of a body too big to log: for those requests the DeleteOptions (propagation policy), owner references and finalizers are unknown, and kgc ties their cascade from the other requests and timing", a.skippedBodies, path, skippedBody))
	}
	if a.lost&lostReads != 0 {
		out = append(out, fmt.Sprintf("%s holds AKS's kube-audit-admin category, which logs no get, list or watch: a post-mortem reads only writes, so no attribution is lost, but no read of the objects can be shown", path))
	}
	if (fs.has(formOpenShiftNodeLogs) || forced == FamilyOpenShift) && a.bodilessDeletes > 0 {
		out = append(out, fmt.Sprintf("%d deletes in %s carry no DeleteOptions, as OpenShift's Default audit profile logs them (metadata only): kgc cannot say which propagation policy they asked for, and ties what went with them by owner references and timing; the WriteRequestBodies profile logs them", a.bodilessDeletes, path))
	}
	if a.passed > 0 {
		out = append(out, fmt.Sprintf("%d records in %s are not Kubernetes audit events (another diagnostic category or service) and were passed over", a.passed, path))
	}
	return out
}

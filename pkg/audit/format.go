package audit

import (
	"slices"
	"strings"
)

// This file names the forms an audit log reaches a post-mortem in: the
// kube-apiserver's own file, and each managed platform's export of it.
// Every form is read into the native Event (see convert.go); each says
// what it loses (see loss.go).

// Family is a platform whose exports --audit-format can force.
type Family string

// Families of audit-log forms.
const (
	FamilyAuto      Family = "auto"
	FamilyNative    Family = "native"
	FamilyEKS       Family = "eks"
	FamilyGKE       Family = "gke"
	FamilyAKS       Family = "aks"
	FamilyOpenShift Family = "openshift"
)

// Families lists the values --audit-format takes.
func Families() []Family {
	return []Family{FamilyAuto, FamilyNative, FamilyEKS, FamilyGKE, FamilyAKS, FamilyOpenShift}
}

// form is one wire form of audit events, as window.files[].format names
// it.
type form uint16

// The forms read. A file of several (a collector's mixed lines) names
// each, joined by "+".
const (
	formNative            form = 1 << iota // Event JSON: lines, EventList, pretty-printed
	formNativeYAML                         // Events in YAML
	formEKSCloudWatch                      // aws logs filter-log-events / get-log-events JSON
	formEKSInsightsJSON                    // CloudWatch Logs Insights results, JSON
	formEKSInsightsCSV                     // CloudWatch Logs Insights results, CSV
	formEKSSubscription                    // subscription-filter payloads (logEvents[])
	formEKSS3Export                        // CloudWatch export to S3: "TIME MESSAGE" lines
	formGKE                                // Cloud Logging LogEntry with protoPayload
	formAKSDiagnostics                     // diagnostic-setting records (storage PT1H.json, Event Hubs)
	formAKSLogAnalytics                    // Log Analytics AKSAudit/AKSAuditAdmin rows
	formOpenShiftNodeLogs                  // oc adm node-logs: "NODE EVENT" lines
	formElasticECS                         // Elastic's kubernetes.audit_logs documents
	formLast
)

var formNames = map[form]string{
	formNative:            "native",
	formNativeYAML:        "native-yaml",
	formEKSCloudWatch:     "eks-cloudwatch",
	formEKSInsightsJSON:   "eks-logs-insights-json",
	formEKSInsightsCSV:    "eks-logs-insights-csv",
	formEKSSubscription:   "eks-subscription",
	formEKSS3Export:       "eks-s3-export",
	formGKE:               "gke-logentry",
	formAKSDiagnostics:    "aks-diagnostics",
	formAKSLogAnalytics:   "aks-log-analytics",
	formOpenShiftNodeLogs: "openshift-node-logs",
	formElasticECS:        "elastic-ecs",
}

// family is the platform a form belongs to.
func (f form) family() Family {
	switch f {
	case formNative, formNativeYAML, formElasticECS:
		return FamilyNative
	case formEKSCloudWatch, formEKSInsightsJSON, formEKSInsightsCSV, formEKSSubscription, formEKSS3Export:
		return FamilyEKS
	case formGKE:
		return FamilyGKE
	case formAKSDiagnostics, formAKSLogAnalytics:
		return FamilyAKS
	case formOpenShiftNodeLogs:
		return FamilyOpenShift
	default:
		return FamilyAuto
	}
}

// forms is a set of forms.
type forms uint16

func (s forms) has(f form) bool { return s&forms(f) != 0 }

// String names the forms of s, sorted, joined by "+".
func (s forms) String() string {
	var names []string
	for f := form(1); f < formLast; f <<= 1 {
		if s.has(f) {
			names = append(names, formNames[f])
		}
	}
	slices.Sort(names)
	return strings.Join(names, "+")
}

// allows says whether a file forced to fam may hold form f. OpenShift's
// files are native events, whether node-logs prefixed them or not.
func allows(fam Family, f form) bool {
	switch fam {
	case FamilyAuto, "":
		return true
	case FamilyOpenShift:
		return f == formOpenShiftNodeLogs || f.family() == FamilyNative
	default:
		return f.family() == fam
	}
}

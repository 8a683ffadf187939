package apply

import "github.com/kgc-dev/kgc/pkg/apply/report"

// The report's types are package report's, which the pure renderers
// import; apply writes them under the names it always had.
type (
	Report        = report.Report
	RequestRecord = report.RequestRecord
	Preconditions = report.Preconditions
	ObjectResult  = report.ObjectResult
	ResultSummary = report.ResultSummary
	Refusal       = report.Refusal
	ObjectDiff    = report.ObjectDiff
	Backup        = report.Backup
	RemedyApplied = report.RemedyApplied
)

// Outcomes, results and reasons of refusal (package report documents each).
const (
	OutcomeAsPlanned      = report.OutcomeAsPlanned
	OutcomeDiverged       = report.OutcomeDiverged
	OutcomeTimedOut       = report.OutcomeTimedOut
	OutcomeSent           = report.OutcomeSent
	OutcomeRefused        = report.OutcomeRefused
	OutcomeDryRunAccepted = report.OutcomeDryRunAccepted
	OutcomeDryRunRejected = report.OutcomeDryRunRejected
	OutcomeRejected       = report.OutcomeRejected
	OutcomeUnknown        = report.OutcomeUnknown
	OutcomeInterrupted    = report.OutcomeInterrupted

	ResultAsPlanned  = report.ResultAsPlanned
	ResultDiverged   = report.ResultDiverged
	ResultInProgress = report.ResultInProgress

	ReasonNoBasis      = report.ReasonNoBasis
	ReasonOtherCluster = report.ReasonOtherCluster
	ReasonStale        = report.ReasonStale
	ReasonApplied      = report.ReasonApplied
	ReasonKept         = report.ReasonKept
	ReasonBackup       = report.ReasonBackup
	ReasonMaxDeletions = report.ReasonMaxDeletions
	ReasonBlocked      = report.ReasonBlocked
	ReasonNotConfirmed = report.ReasonNotConfirmed
	ReasonIncomplete   = report.ReasonIncomplete

	NotInPlan = report.NotInPlan
)

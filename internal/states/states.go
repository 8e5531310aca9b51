package states

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrUnknown is matched by every error a Parse function returns.
var ErrUnknown = errors.New("states: unknown value")

// ScanOutcome is how a scan ended, or that it is still running.
type ScanOutcome string

// Scan outcomes.
const (
	OutcomeRunning ScanOutcome = "running" // not finished yet
	OutcomeMatch   ScanOutcome = "match"   // the live server serves what was pinned
	OutcomeDrift   ScanOutcome = "drift"   // it differs; the scan names a drift event
	OutcomeError   ScanOutcome = "error"   // it could not be read; see ScanErrorKind
)

var scanOutcomes = set[ScanOutcome]{"scan outcome", []ScanOutcome{OutcomeRunning, OutcomeMatch, OutcomeDrift, OutcomeError}}

// ScanErrorKind says why a scan whose outcome is OutcomeError failed; it
// is empty for every other outcome.
type ScanErrorKind string

// Scan error kinds.
const (
	ErrorKindFetch          ScanErrorKind = "fetch"           // the package could not be obtained or prepared
	ErrorKindDigestMismatch ScanErrorKind = "digest_mismatch" // the published package is not the declared one
	ErrorKindDependencySpec ScanErrorKind = "dependency_spec" // it depends on something other than registry packages
	ErrorKindTimeout        ScanErrorKind = "timeout"         // the scan's deadline passed
	ErrorKindLimit          ScanErrorKind = "limit"           // the server went over one of the scan's limits
	ErrorKindDenied         ScanErrorKind = "denied"          // the scanner refused to connect to its address
	ErrorKindInvalid        ScanErrorKind = "invalid"         // it sent JSON the pin specification rejects
	ErrorKindProtocol       ScanErrorKind = "protocol"        // it did not speak MCP as expected
	ErrorKindUnreachable    ScanErrorKind = "unreachable"     // any other failure to read it
	ErrorKindAbandoned      ScanErrorKind = "abandoned"       // the replica running the scan stopped renewing its lease
)

var scanErrorKinds = set[ScanErrorKind]{"scan error kind", []ScanErrorKind{ErrorKindFetch, ErrorKindDigestMismatch,
	ErrorKindDependencySpec, ErrorKindTimeout, ErrorKindLimit, ErrorKindDenied, ErrorKindInvalid, ErrorKindProtocol,
	ErrorKindUnreachable, ErrorKindAbandoned}}

// ScanTrigger says what started a scan.
type ScanTrigger string

// Scan triggers.
const (
	TriggerManual     ScanTrigger = "manual"      // someone asked (API, CLI, web UI)
	TriggerSchedule   ScanTrigger = "schedule"    // the shared scan schedule
	TriggerHostReport ScanTrigger = "host_report" // a host reported a mismatch
)

var scanTriggers = set[ScanTrigger]{"scan trigger", []ScanTrigger{TriggerManual, TriggerSchedule, TriggerHostReport}}

// QuarantineKind says why a quarantined version is quarantined; it decides
// what releasing it needs. It is QuarantineNone for every other state.
type QuarantineKind string

// Quarantine kinds.
const (
	// QuarantineNone is the kind of a version that is not quarantined; it
	// is not Valid.
	QuarantineNone     QuarantineKind = ""
	QuarantineManual   QuarantineKind = "manual"   // a reviewer quarantined it
	QuarantineDrift    QuarantineKind = "drift"    // a scan saw drift the policy quarantines
	QuarantineReverify QuarantineKind = "reverify" // its attestations no longer verify under a required policy
	QuarantineArtifact QuarantineKind = "artifact" // its published package stopped matching its digest
	QuarantineUpstream QuarantineKind = "upstream" // the upstream it was imported from deleted it
)

var quarantineKinds = set[QuarantineKind]{"quarantine kind", []QuarantineKind{QuarantineManual, QuarantineDrift,
	QuarantineReverify, QuarantineArtifact, QuarantineUpstream}}

// DriftStatus is what became of a drift event.
type DriftStatus string

// Drift event statuses.
const (
	DriftOpen     DriftStatus = "open"     // quarantine-class drift waiting for a decision
	DriftAccepted DriftStatus = "accepted" // re-pinned to the live snapshot
	DriftDeclined DriftStatus = "declined" // closed without re-pinning
	DriftWarned   DriftStatus = "warned"   // warn-only drift, recorded and shown
	DriftResolved DriftStatus = "resolved" // released after a scan matched the pins again
)

var driftStatuses = set[DriftStatus]{"drift status", []DriftStatus{DriftOpen, DriftAccepted, DriftDeclined, DriftWarned, DriftResolved}}

// ScanOutcomes lists every scan outcome.
func ScanOutcomes() []ScanOutcome { return scanOutcomes.list() }

// ScanErrorKinds lists every scan error kind.
func ScanErrorKinds() []ScanErrorKind { return scanErrorKinds.list() }

// ScanTriggers lists every scan trigger.
func ScanTriggers() []ScanTrigger { return scanTriggers.list() }

// QuarantineKinds lists every quarantine kind but QuarantineNone.
func QuarantineKinds() []QuarantineKind { return quarantineKinds.list() }

// DriftStatuses lists every drift event status.
func DriftStatuses() []DriftStatus { return driftStatuses.list() }

// ParseScanOutcome returns s as a ScanOutcome, or an error matching
// ErrUnknown that lists the outcomes.
func ParseScanOutcome(s string) (ScanOutcome, error) { return scanOutcomes.parse(s) }

// ParseScanErrorKind returns s as a ScanErrorKind, or an error matching
// ErrUnknown that lists the kinds.
func ParseScanErrorKind(s string) (ScanErrorKind, error) { return scanErrorKinds.parse(s) }

// ParseScanTrigger returns s as a ScanTrigger, or an error matching
// ErrUnknown that lists the triggers.
func ParseScanTrigger(s string) (ScanTrigger, error) { return scanTriggers.parse(s) }

// ParseQuarantineKind returns s as a QuarantineKind, or an error matching
// ErrUnknown that lists the kinds ("" is QuarantineNone, not a kind).
func ParseQuarantineKind(s string) (QuarantineKind, error) { return quarantineKinds.parse(s) }

// ParseDriftStatus returns s as a DriftStatus, or an error matching
// ErrUnknown that lists the statuses.
func ParseDriftStatus(s string) (DriftStatus, error) { return driftStatuses.parse(s) }

// Valid reports whether o is one of the scan outcomes.
func (o ScanOutcome) Valid() bool { return scanOutcomes.has(o) }

// Valid reports whether k is one of the scan error kinds.
func (k ScanErrorKind) Valid() bool { return scanErrorKinds.has(k) }

// Valid reports whether t is one of the scan triggers.
func (t ScanTrigger) Valid() bool { return scanTriggers.has(t) }

// Valid reports whether k is one of the quarantine kinds (QuarantineNone
// is not).
func (k QuarantineKind) Valid() bool { return quarantineKinds.has(k) }

// Valid reports whether s is one of the drift event statuses.
func (s DriftStatus) Valid() bool { return driftStatuses.has(s) }

// Join lists values for a message, e.g. "open, accepted, declined, warned, resolved".
func Join[T ~string](values []T) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}

// set is the values of one typed state, in the order messages list them;
// what names the state in errors.
type set[T ~string] struct {
	what   string
	values []T
}

func (s set[T]) has(v T) bool { return slices.Contains(s.values, v) }

func (s set[T]) list() []T { return slices.Clone(s.values) }

func (s set[T]) parse(text string) (T, error) {
	if v := T(text); s.has(v) {
		return v, nil
	}
	return "", fmt.Errorf("%w: %s %q: want one of %s", ErrUnknown, s.what, text, Join(s.values))
}

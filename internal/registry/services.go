package registry

import (
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/fetch"
)

// Review is submission and review: submit, transitions, server policies,
// and the reads of servers, versions and pin history.
type Review struct {
	*core
	// scans reads a server live at submission (submit --live) and checks
	// a drift release against the latest scan.
	scans *Scans
	// attest checks submitted bundles and the admission gate of an
	// approval, and validates attestation policies.
	attest *Attestations
	// discovery's index finds tools a submission shadows.
	discovery *Discovery
}

func newReview(c *core, scans *Scans, att *Attestations, disc *Discovery) *Review {
	return &Review{core: c, scans: scans, attest: att, discovery: disc}
}

// Scans runs scans: on demand, on the schedule (under leases shared by
// the replicas), and at host connection checks; it records drift, decides
// quarantine, and serves scan and drift views.
type Scans struct {
	*core
	// scanning is nil when live reads are off.
	scanning *Scanning
	// merge merges concurrent scan requests for one version.
	merge singleflight.Group
	// gate bounds on-demand scans (Limits.ScanRate and
	// ScanOnDemandConcurrency).
	gate *scanGate
	// defaultReplica names this process in scan records when scanning
	// does not.
	defaultReplica string
	// hostCheckSweep paces deleting observations past their retention.
	hostCheckSweep hostCheckSweep
	// attest checks the admission gate of accepting drift and the
	// artifact a scan ran.
	attest *Attestations
	// discovery says what a host may use (host checks, host scans).
	discovery *Discovery
	// creds opens the credentials a server is read with.
	creds *Credentials
}

func newScans(c *core, sc *Scanning, att *Attestations, disc *Discovery, creds *Credentials) *Scans {
	return &Scans{core: c, scanning: sc, gate: newScanGate(c.limits.ScanRate, c.limits.ScanOnDemandConcurrency),
		defaultReplica: DefaultReplicaName(), attest: att, discovery: disc, creds: creds}
}

// Credentials keeps the credential sets admins give the scanner per
// server, sealed with the secrets key (Scanning.SecretsKey).
type Credentials struct {
	*core
	// scanning is nil when live reads are off (credentials are refused).
	scanning *Scanning
}

func newCredentials(c *core, sc *Scanning) *Credentials { return &Credentials{core: c, scanning: sc} }

// Discovery serves what hosts read: the signed discovery index, resolve,
// and the official registry API.
type Discovery struct {
	*core
	// disc is the discovery index, rebuilt after changes.
	disc *discoveryCache
	// signer signs discovery documents; nil refuses discovery reads.
	signer *DiscoverySigner
}

func newDiscovery(c *core, signer *DiscoverySigner) *Discovery {
	d := &Discovery{core: c, disc: newDiscoveryCache(), signer: signer}
	c.caches = append(c.caches, d.changed)
	return d
}

// Attestations verifies and stores sigstore bundles and artifact digests,
// and re-verifies them against the current roots and policies.
type Attestations struct {
	*core
	// verifier checks attestations (default: the public-good root only).
	verifier *attest.Verifier
	// npm reads the integrity the npm registry publishes (default: the
	// public npm registry).
	npm NPMIntegrity
}

func newAttestations(c *core, v *attest.Verifier, npm NPMIntegrity) (*Attestations, error) {
	a := &Attestations{core: c, verifier: v, npm: npm}
	if a.npm == nil {
		a.npm = fetch.Packuments{}
	}
	if err := a.defaultVerifier(); err != nil {
		return nil, err
	}
	return a, nil
}

// Audit is the audit chain: its events, verification, signed checkpoints,
// and the change feed from the other replicas.
type Audit struct {
	*core
	// checkpoints configures signed audit checkpoints; nil: none.
	checkpoints *Checkpoints
	// signer's current key signs checkpoints.
	signer *DiscoverySigner
	// seenCheckpoint is the latest checkpoint this replica verified: one
	// deleted from the database afterwards stops signing.
	seenCheckpoint atomic.Pointer[auditchain.Checkpoint]
}

func newAudit(c *core, cp *Checkpoints, signer *DiscoverySigner) *Audit {
	return &Audit{core: c, checkpoints: cp, signer: signer}
}

// (Receipts, in receipts.go, stores gate receipts; it reads the discovery
// index to check that a host may resolve the version a receipt names.)

// Package registry holds mcpreg's use-cases other than identity, as five
// services over one shared core (store, clock, logger, limits, scan
// metrics, the audit writer and the change feed):
//
//   - Review: submission, the review lifecycle, server policies, the reads
//     of servers, versions and pin history;
//   - Scans: scan runs, the scheduler and its leases, drift decisions and
//     quarantine, host connection checks;
//   - Discovery: the signed discovery index, resolve, the official API;
//   - Attestations: sigstore bundles, artifacts, re-verification, and the
//     admission gate every approval passes;
//   - Audit: the hash-chained audit log, its checkpoints, the change feed.
//
// New builds them together (services.go shows what each depends on). The
// package knows nothing of gRPC or HTTP; the server package adapts it, and
// maps its errors.
package registry

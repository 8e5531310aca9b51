// Package attest will verify sigstore bundles against per-server identity
// policies offline and produce verification receipts (signed-artifacts
// issue). It is pure: no database, no transport.
package attest

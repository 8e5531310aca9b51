// Package attest verifies sigstore bundles offline against per-server
// policies and produces the verification receipts the registry stores.
//
// A [Policy] names a trust domain (a sigstore trusted_root.json loaded into
// [TrustedRoots]) and the signers it accepts: keyless identities (OIDC issuer
// and certificate SAN, exact or anchored regexp, optionally the source
// repository the certificate names) or public keys; for DSSE in-toto bundles
// it may restrict the predicate types. [Verifier.Verify] checks a bundle
// (v0.1 to v0.3, message signature or DSSE) about an [Artifact] (its bytes or
// its sha256/sha384/sha512 digest) with sigstore-go: certificate chain, SCTs,
// transparency log inclusion, timestamps, signature, identity, artifact
// digest or in-toto subject, and returns a [Receipt].
//
// Errors wrap one of the sentinels ErrTooLarge, ErrPolicy, ErrUnknownRoot,
// ErrInvalidArtifact, ErrInvalidBundle and ErrVerification, and say which
// check failed. Callers fail closed: a policy that is Required is satisfied
// only by a receipt.
//
// The package is pure: no database, no network, no transport. Trusted roots
// come from files (or bytes) loaded once; roots/public-good.json is an
// embedded snapshot of the public-good root for the offline CLI.
//
// Package attesttest makes bundles and trusted roots of a private,
// in-process sigstore for tests of code that uses this package.
package attest

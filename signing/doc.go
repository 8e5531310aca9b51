// Package signing signs and verifies the registry's discovery documents.
//
// A discovery document travels in a DSSE envelope (Dead Simple Signing
// Envelope, https://github.com/secure-systems-lab/dsse) signed with Ed25519:
// the standard JSON form {"payloadType","payload","signatures":[{"keyid","sig"}]}
// with base64 payload and signatures over the DSSE v1 pre-authentication
// encoding. The envelope type, PAE and the sign/verify loop come from
// go-securesystemslib's dsse package; this package adds the Ed25519 adapter,
// key files and the verification policy.
//
// [Verify] fails closed: it accepts an envelope only if it is well-formed
// JSON of at most [MaxEnvelopeSize] bytes with no unknown fields, canonical
// base64, the expected payload type, at least one signature, and every
// signature names a trusted key and verifies. Errors wrap one of the
// sentinels in errors.go and say what was wrong and where.
//
// A key id is "ed25519:" followed by the hex of the first 16 bytes of the
// SHA-256 of the public key's PKIX DER encoding ([KeyID]). Private keys are
// stored as PKCS#8 PEM in files readable by their owner only; public keys
// are published as PKIX PEM.
//
// A [KeySet] is what a registry publishes: its current key, and earlier keys
// kept listed ("retiring") until the documents they signed have expired, so
// clients keep verifying across a key rotation.
//
// The package is pure: no database, no network.
package signing

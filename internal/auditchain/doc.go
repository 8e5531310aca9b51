// Package auditchain holds the hash chain of mcpreg's audit log and its
// signed checkpoints, so that the registry and any client recompute the
// chain the same way.
//
// Every audit event is hashed over its fixed fields and the hash of the
// event before it ([Hash]); the first event links to [Genesis]. A [Chain]
// replays events in sequence order, recomputing each hash, and names the
// first event whose link does not hold.
//
// An internally consistent chain proves nothing against someone who can
// write the database: they can change an early event and recompute every
// later hash. A [Checkpoint] anchors the chain outside the database: a
// signed note (golang.org/x/mod/sumdb/note, Ed25519) of the form
//
//	<origin>
//	<length>
//	<base64 of the SHA-256 head hash after event <length>>
//	time <RFC 3339 UTC>
//
// signed with the registry's discovery key under the origin as key name.
// Replaying the chain against a checkpoint fails when any event at or
// before its length was rewritten ([ErrRewritten]) or when the chain is
// shorter than the checkpoint ([ErrTruncated]). There is no Merkle tree:
// checking a checkpoint means replaying the chain up to it.
//
// The package is pure: no database, no network.
package auditchain

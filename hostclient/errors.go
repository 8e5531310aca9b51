package hostclient

import "errors"

// Sentinel errors of Resolve and its helpers. The message after the
// sentinel says what was wrong and where (page, key, times, sequences).
var (
	// ErrNoKeys: no trusted key to verify the document with.
	ErrNoKeys = errors.New("no trusted discovery keys")
	// ErrNoState: no SequenceStore, so a rolled-back document could not be
	// told apart.
	ErrNoState = errors.New("no sequence store")
	// ErrSignature: a page's envelope is malformed or its signature does not
	// verify with a trusted key. The signing package's error is wrapped too.
	ErrSignature = errors.New("discovery document does not verify")
	// ErrExpired: the document's validity ended (now is at or after
	// ExpiresAt).
	ErrExpired = errors.New("discovery document expired")
	// ErrNotYetValid: the document was issued further in the future than
	// MaxClockSkew allows.
	ErrNotYetValid = errors.New("discovery document issued in the future")
	// ErrRollback: the document's sequence is lower than the last one
	// accepted from that registry.
	ErrRollback = errors.New("discovery document older than the last one accepted")
	// ErrDocument: the payload is not a usable discovery document: bad JSON,
	// another document type, an answer to another query, or pages that
	// disagree with each other.
	ErrDocument = errors.New("unusable discovery document")
	// ErrNoCache: ResolveCached without a DocumentCache to fall back on.
	ErrNoCache = errors.New("no document cache")
	// ErrUnreachable: the registry could not be reached (connection refused
	// or reset, timeout, DNS failure, 502/503/504) and no cached document
	// could stand in. The registry's error and the cache's are wrapped too.
	ErrUnreachable = errors.New("registry unreachable")
	// ErrCacheFile: a document cache file that does not parse, belongs to
	// another key or exceeds the cache's bounds. The message names it.
	ErrCacheFile = errors.New("unusable document cache file")
)

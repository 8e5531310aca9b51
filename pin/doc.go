// Package pin reads MCP tool lists strictly and computes their pins as
// defined by the mcpreg-pin-v1 specification (docs/pin-spec.md, "Pin
// specification").
//
// A pin is a SHA-256 hash of the RFC 8785 (JCS) canonical form of part of a
// tools/list result, prefixed by a domain-separation line such as
// "mcpreg-pin-v1/tool\n". Agent hosts reproduce these hashes from the live
// tools/list they receive, so the rules here are a public contract; the
// golden vectors in testdata/pin at the repository root pin them down.
//
// Reading is strict: [Validate] and [ParseToolsList] reject duplicate object
// member names at any depth, invalid UTF-8, lone surrogate escapes, numbers
// outside the IEEE 754 double range, trailing data, and input over the
// configured [Limits]. Every rejection is an [*Error] naming the offending
// place as an RFC 6901 JSON pointer. Errors caused by bad input match
// [ErrInvalid]; errors caused by a size, depth or count limit match
// [ErrTooLarge] instead, so a service can report them as exhausted
// resources rather than malformed requests.
//
// Each tool keeps its raw JSON bytes exactly as received ([Tool].Raw);
// [Compute] hashes projections of those bytes and never re-marshals Go
// structs, which would drop or add members.
package pin

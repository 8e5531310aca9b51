// Package pin reads MCP tool lists strictly and computes their pins as
// defined by the mcpreg-pin-v1 specification ([Compute]) and by
// mcpreg-pin-v2 ([ComputeV2]), which keeps every v1 hash and adds hashes of
// the server's prompts and resources (docs/pin-spec.md).
//
// A pin is a SHA-256 hash of the RFC 8785 (JCS) canonical form of part of a
// tools file (a tools/list result, for v2 with the server's prompts,
// resources and resource templates), prefixed by a domain-separation line
// such as "mcpreg-pin-v1/tool\n". Agent hosts reproduce these hashes from
// the live lists they receive, so the rules here are a public contract; the
// golden vectors in testdata/pin (v1) and testdata/pin/v2 at the
// repository root pin them down.
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
// Each tool, prompt, resource and resource template keeps its raw JSON
// bytes exactly as received ([Tool].Raw, [Prompt].Raw, ...); [Compute] and
// [ComputeV2] hash projections of those bytes and never re-marshal Go
// structs, which would drop or add members.
package pin

// Package serverjson reads the server.json a version submission carries: the
// official MCP registry's description of a server (name, version,
// packages[], remotes[]), schema version 2025-12-11.
//
// Parse accepts a document only if it is strict JSON (no duplicate member
// names, valid UTF-8, nothing after the value), declares
// "$schema": SchemaURL, satisfies the official JSON Schema, names at least
// one package or remote, and spells argument members exactly (the
// registry's Argument type decodes member names case-insensitively). A
// rejection is a *ValidationError listing every violation found at the
// failing step, each located by a JSON pointer; all rejections match
// ErrInvalid. Where the schema offers alternatives told apart by "type"
// (transports, arguments), only the problems of the alternative the
// document names are reported.
//
// Parse is how mcpreg reads every server.json, stored ones included.
// Submissions pass one more step, CheckSubmission: the rules the official
// registry (v1.8.9, internal/validators) applies on publication beyond its
// schema. Server name parts start and end with a letter or digit; the
// server and package versions are neither "latest" nor a range
// (comparators, hyphen ranges, "||", x/X/* wildcards); a title is not only
// whitespace; a repository has a url and a source, a github or gitlab url
// names a project on github.com or gitlab.com, and a subfolder is a clean
// relative path; websiteUrl and icon src are absolute https URLs; package
// identifiers have no spaces; named arguments have a bare flag name that
// their value and default do not repeat; stdio transports have no url; and
// http transport urls parse once their {variables} are filled in, every
// variable defined by the package (environment variable names, argument
// names and valueHints) or the remote ("variables"). Its violations have
// the same form as Parse's. Because Parse leaves these rules out, versions
// stored before them stay readable.
//
// CheckSubmission leaves out what the official registry checks by fetching
// from package registries (package ownership, with its per-registry
// registryBaseUrl and fileSha256 rules), its publishing permissions, and
// three rules that would refuse servers mcpreg exists to register: remote
// urls must be https and not name a local host, a repository source must
// be "github" or "gitlab", and the publisher-provided _meta (where mcpreg
// keeps contracts) is capped at 4 KB. Name parts of one character, which
// the official pattern refuses in passing, are allowed.
//
// The JSON Schema (draft-07) is embedded from
// github.com/modelcontextprotocol/registry v1.8.9,
// docs/reference/server-json/draft/server.schema.json (Apache-2.0 / MIT, see
// schema/NOTICE.md and schema/LICENSE). It is compiled once, on first use,
// and registered under its own $id and under SchemaURL; the compiler's
// loader refuses every URL, so validation never reads the network or disk.
//
// The decoded form is apiv0.ServerJSON from the same module, so the rest of
// mcpreg shares the registry's own types.
package serverjson

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

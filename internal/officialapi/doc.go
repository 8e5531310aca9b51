// Package officialapi checks HTTP responses against the official MCP
// registry's OpenAPI document, so tests can prove that mcpreg's read-only
// /v0.1 API serves exactly the shapes the official registry documents. It is
// test support: only tests import it.
//
// Load reads docs/reference/api/openapi.yaml from the module
// github.com/modelcontextprotocol/registry (the version go.mod requires,
// located with `go list -m`), so the document is never copied into this
// repository and moves with the required version. The document is OpenAPI
// 3.1; its schemas are JSON Schema 2020-12 and are compiled in place, with
// the whole document added as one resource so "#/components/schemas/..."
// references resolve. Compilation never reads the network or other files.
//
// Formats: 2020-12 treats "format" as an annotation, and the document does
// not ask for the format-assertion vocabulary. One format is asserted all
// the same: "date-time". The document's timestamps (publishedAt, updatedAt,
// statusChangedAt) are time.Time in the official Go types
// (pkg/api/v0.RegistryExtensions), so a client built on them cannot decode a
// timestamp that is not RFC 3339; that is part of the wire shape. Every other
// format the document names ("uri") stays an annotation.
//
// A body that departs from its schema yields a *MismatchError listing each
// problem at its JSON pointer; it matches ErrMismatch.
package officialapi

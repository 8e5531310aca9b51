// Package diffreview computes what reviewers read about MCP tool
// definitions: poisoning indicators, shadowing across approved servers,
// drift between an approved and a live snapshot, and readable diffs. It is
// pure: no database, no network, no clock.
//
// # Poisoning
//
// [Poisoning] scans all model-visible text of a server (tool names,
// titles, descriptions, every string and member name inside annotations,
// inputSchema and outputSchema, and the server instructions) for
// instruction overrides, secrecy toward the user, prompt-style tag
// markers, hidden Unicode, sensitive paths, side-channel parameters,
// requests for the conversation or secrets, encoded payloads and
// instructions about other tools. Text hidden as Unicode tag characters,
// base64, hex or a data: URI is decoded and scanned as well. Before
// matching, hidden characters are dropped and compatibility forms and ASCII
// homoglyphs are folded, so "ig\u200bnore" and Cyrillic "іgnore" match.
// Each finding is a [finding.Finding] with an RFC 6901 pointer into the
// tool's raw JSON and an excerpt rendered by [Visible]. Findings are
// evidence, not verdicts; the rules favour precision, and the corpora
// under testdata/diffreview hold the benign hard negatives that must stay
// below medium and the published attacks that must be caught.
//
// # Shadowing
//
// [Shadowing] (or [Index.Shadowing] with a prebuilt [Index]) compares a
// candidate server with every approved server: exact name collisions,
// confusable names (the same Unicode TR39 skeleton, or an
// optimal-string-alignment distance of one, two for names of ten runes or
// more), distinctive foreign tool names mentioned in descriptions, and
// text that tells the model how to use another server's tool.
//
// # Drift
//
// [Drift] classifies the differences between an approved tools list and a
// live one into the classes of the README ("Live scanning and drift": description_changed,
// schema_changed, annotations_changed, title_changed, tool_added,
// tool_removed, instructions_changed, server_info_changed) and rates each
// under a [Policy]. It compares the members the pin covers, in canonical
// (RFC 8785) form, so it agrees with pin.ToolHash: key order never drifts,
// and icons, _meta and execution are ignored.
//
// # Diffs
//
// [DescriptionDiff] is a word-level diff (github.com/sergi/go-diff over
// word tokens) with hidden characters made visible; [SchemaDiff] is a
// structural diff by JSON pointer with values as canonical JSON;
// [AnnotationDiff] marks hint changes in the dangerous direction.
//
// Confusable skeletons come from github.com/mtibben/confusables
// (BSD-3-Clause; Unicode confusables.txt 13.0 data, Unicode licence).
package diffreview

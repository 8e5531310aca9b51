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
// tool's raw JSON and an excerpt rendered by [Visible]. [PoisoningModel]
// also scans the text of prompts (their arguments and messages included),
// resources and resource templates, with findings that point into the
// tools file (/prompts/3/messages/0/content/text) and name the prompt or
// resource. Findings are evidence, not verdicts; the rules favour
// precision, and the corpora under testdata/diffreview hold the benign
// hard negatives that must stay below medium and the published attacks
// that must be caught.
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
// tool_removed, tool_renamed, instructions_changed, server_info_changed)
// and rates each under a [Policy]. It compares the members the pin covers,
// in canonical (RFC 8785) form, so it agrees with pin.ToolHash: key order
// never drifts, and icons, _meta and execution are ignored. Prompts and
// resources, which pin v1 does not cover, are ignored too.
//
// [Policy.DriftV2] adds what pin v2 covers (docs/pin-spec.md): prompts
// compared by name (prompt_added, prompt_removed,
// prompt_description_changed for the description and title,
// prompt_arguments_changed by argument name, prompt_messages_changed with a
// word diff of the text the model reads, one "role: text" line a message),
// resources by uri (resource_added, resource_removed, resource_changed for
// name, title, description and mimeType) and resource templates by
// uriTemplate (resource_changed whether added, removed or changed), through
// the pin v2 projections, so it agrees with prompts_hash and
// resources_hash: size, annotations, icons and _meta never drift. Prompts
// are not paired as renames. auth_changed, a changed OAuth authorization
// server or audience, is rated by the policy but reported by the registry.
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

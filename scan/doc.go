// Package scan reads what a live MCP server really serves: the facts of its
// initialize result, its complete tools/list, and the prompts and resources
// it shows a model, every item kept as the raw JSON received, with the pins
// of package pin (README.md, "Live scanning and drift").
//
// A [Reader] drives the official Go SDK as a client with one fixed
// capability profile (no roots, sampling or elicitation) and protocol
// version, over stdio ([StdioTarget]) or Streamable HTTP ([HTTPTarget]).
// Raw bytes are captured below the SDK, never re-marshalled from its
// structs (mcp.Tool drops "execution" and adds "idempotentHint"):
//
//   - stdio: the child's standard output is read through a tap that hands
//     every newline-delimited message to a recorder before the SDK decodes
//     it, and its standard input through one that notes each call's id.
//     MCP's stdio transport forbids newlines inside a message, so a line is
//     a message; a server that spreads one over several lines fails strict
//     reading, although the SDK's decoder would accept it.
//     (Wrapping the SDK's mcp.Connection instead would hide the
//     connection's unexported session hooks, and it only sees decoded
//     messages.)
//   - HTTP: an http.RoundTripper notes each posted call and reads
//     application/json bodies and text/event-stream events as they pass.
//
// The recorder matches responses to calls by JSON-RPC id. Every message
// from the server is read strictly first (pin.Validate: no duplicate
// members, invalid UTF-8, lone surrogates or out-of-range numbers), so a
// server sending such JSON fails the scan with [ErrInvalid] even where the
// SDK would have accepted it. Each tools/list page's "tools" goes through
// pin.ParseToolsList; the pages of a listing are joined, from their raw
// bytes, into one tools file ([Snapshot].ToolsFile) that is pinned.
//
// Prompts and resources are model-visible too. When the server's
// capabilities (initialize or server/discover) advertise "prompts", a
// reading walks every page of prompts/list and calls prompts/get twice,
// without arguments, for each prompt none of whose arguments is required;
// the first read's "messages" is kept, merged into the prompt as listed,
// and two reads that differ (compared in canonical JCS form) are a
// [KindPromptInconsistent] finding. When they advertise "resources", it
// walks resources/list and resources/templates/list. A server that does
// not advertise a capability is not asked. These lists are read strictly
// like the tools: each item an object with a unique string key (a
// prompt's "name", a resource's "uri", a template's "uriTemplate", which
// must be an RFC 6570 URI template), every page under the same limits and
// cursor loop guard. [Snapshot].ModelFile joins them to the tools file;
// they are not pinned yet.
//
// Servers are hostile input. A scan has a deadline and caps on bytes per
// message and in total, pages, tools, prompts, resources and nesting
// depth ([Limits]); it follows nextCursor with a loop guard; it lists the
// tools at least twice and reports different listings as a
// [KindListInconsistent] finding. A server read over both protocol
// versions whose tools, instructions, prompts, resources or resource
// templates differ by version is a [KindProtocolVariance] finding.
// stdio servers run without a shell, with a scrubbed environment. With a
// [StdioTarget].Sandbox (what the registry uses) they run confined by
// package sandbox: own uid, namespaces, no network, a tmpfs, capped memory
// and processes, the whole tree killed through its cgroup at the end or at
// the deadline. Without one (mcpreg inspect, hosts) they run in a fresh
// working directory, optionally as another user, in their own process
// group, which is killed with SIGKILL at the end; a grandchild that starts
// its own session escapes that group. HTTP scans
// dial through a guard that refuses loopback, private, link-local, shared,
// multicast, reserved and cloud metadata addresses unless an [AllowList]
// names them, checked on the resolved address at connect time; redirects
// must stay on the same origin; proxies from the environment are not used.
//
// An HTTP scan that succeeded then reads what the server says about its
// authorization ([Snapshot].Auth): its OAuth protected-resource metadata
// (RFC 9728; the well-known path inserted before the endpoint's path,
// then at the root) and, for at most four authorization servers it lists,
// their metadata (RFC 8414, then OpenID Connect discovery). A server
// without metadata (every well-known URL answers 4xx) costs two requests
// and leaves Auth nil. These requests carry none of the target's Headers,
// go through the same dial guard on a transport of their own, may follow
// up to three http(s) redirects to any origin, and are capped at 64 KiB
// per document, 10s per request and 20s in all, within the scan deadline.
// Documents are read strictly (one JSON object, members of the right
// type). Failures are findings, never a failed scan: a refused request
// or redirect [KindAuthMetadataRefused] (high), any other
// [KindAuthMetadataUnreadable]; a "resource" that is neither the endpoint
// nor its origin [KindAuthResourceMismatch], an "issuer" other than the
// listed URL [KindAuthIssuerMismatch].
//
// Failures match one of [ErrLimit], [ErrDenied], [ErrProtocol], [ErrInvalid]
// and [ErrTimeout]. The package needs a Unix system (process groups).
package scan

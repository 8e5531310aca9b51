// Package gate is mcpreg's runtime gate: it stands between an MCP host and
// one MCP server and enforces, message by message, what the registry
// approved for that server.
//
// The gate is a relay, not a re-served server: it passes JSON-RPC messages
// as their raw bytes, so that a tool definition that matches its pin
// reaches the host exactly as the server sent it. Where policy requires,
// it changes the traffic:
//   - every tools/list answer (every one, not only the first) loses the
//     tools whose definition does not match the signed pins (changed,
//     added, unknown, listed twice); an initialize result whose
//     instructions differ withholds the whole server;
//   - a tools/call for a tool the session's latest listing did not pass is
//     refused with an error that says why, and never reaches the server;
//   - the approved capability contract is enforced (a version without one
//     gets the strictest rule for every tool): a tool whose risk tier is
//     not one of the session's scopes is neither listed nor callable;
//     arguments are validated against the approved inputSchema (JSON
//     Schema 2020-12, no URL ever loaded); requires_key tools need
//     _meta["io.mcpreg/idempotencyKey"], not reused for other arguments;
//     approval always/conditional tools need _meta["io.mcpreg/approval"]
//     with the argumentsDigest of exactly this call (removed before
//     forwarding); a call that outlives its contract timeout is cancelled
//     upstream, answered with a timeout error and receipted uncertain;
//   - results are untrusted content (tool results, and what prompts/get
//     and resources/read return): the poisoning detectors of package
//     diffreview read them; per the contract's resultHandling a finding at
//     or above Options.BlockSeverity withholds the result (the error names
//     finding kinds, never the text), and every text block is wrapped in
//     markers carrying a nonce fresh for each call; structuredContent is
//     never rewritten; results over Options.MaxResultBytes are cut and the
//     cut stated;
//   - requests from the server to the host (sampling, elicitation, roots)
//     are refused by the gate, ping is answered by it;
//   - capabilities are negotiated through the gate, under 2025-11-25
//     (initialize) and 2026-07-28 (server/discover, and _meta on every
//     request) alike. The server hears that the host offers no client
//     capability (sampling, elicitation and roots the gate would refuse;
//     experimental, extensions and unknown members it cannot enforce):
//     initialize's params.capabilities and each request's
//     _meta["io.modelcontextprotocol/clientCapabilities"] are trimmed,
//     clientInfo and everything else pass as sent. The host hears the
//     server's tools, prompts, resources, completions and logging, never
//     its experimental capabilities, extensions or unknown members. Once
//     the server's capabilities are known, a request of a capability the
//     gate withheld, or of completions, logging or resource subscriptions
//     (traffic the gate does not check) the server did not advertise, is
//     refused naming the capability; a method of no capability the gate
//     relays (tasks/*, custom methods) always is;
//   - host request ids are replaced by the gate's own (and restored on the
//     answer), so gate-originated requests never collide with the host's,
//     1, "1" and 1.0 stay different ids, a duplicate id in flight is
//     refused and an answer to no request in flight is dropped;
//     notifications/cancelled is mapped to the server's id, progress
//     notifications pass only for tokens the host issued;
//   - a listing that withholds a tool for not matching its pin is given
//     to Options.Report (once per distinct listing): the gate's
//     observation for the registry's connect-time check;
//   - notifications/tools/list_changed makes the gate re-list the tools
//     itself; the host hears list_changed when the tools passed changed;
//   - batches are refused, notifications never answered;
//   - Withhold (a quarantine seen in a fresh discovery document) refuses
//     every later request but ping, after telling the host the tool list
//     changed.
//
// Every tools/call leaves a Receipt (committed, failed, uncertain or
// rejected) in a ReceiptSink, such as a rotated JSON-lines ReceiptFile.
//
// A relay reads and writes newline-delimited JSON-RPC; what it stands
// between is a Conn. An Upstream is a stdio server process; a Remote
// adapts a Streamable HTTP server (each SSE event one message, judged on
// its own; no event ids kept, so nothing is replayed; no credentials of
// the host's ever sent). Gateway serves relays over Streamable HTTP per
// host token (mcpreg gate serve): sessions of its own, Host and Origin
// checked, the token's verified view cached for at most a refresh. Search
// is search mode: two tools instead of the catalogue, one that searches
// the tools the session's relays pass on every approved server and one
// that calls a found tool through its server's relay.
package gate

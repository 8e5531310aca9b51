// Package hostclient is what an agent host imports to use an mcpreg
// registry: resolve the signed allowlist of MCP servers it may connect to,
// compare what a server serves with the approved pins, and decide whether
// to expose it.
//
// [Client.Resolve] fetches every page of the discovery document and fails
// closed: each page's DSSE signature must verify with a key the host
// trusts ([Client].Keys: pin them out of band; [Client.FetchKeys] reads the
// registry's published keys, which come over the same connection as the
// documents and so prove nothing about them), the document must be fresh
// (now before ExpiresAt, IssuedAt at most [MaxClockSkew] ahead), it must
// answer the query that was asked, every page must carry the same sequence,
// and the sequence must not be lower than the last one accepted from that
// registry ([SequenceStore]: [MemoryStore] in a long-running host,
// [FileStore] across restarts).
//
// With a [Client].Cache ([DocumentCache]; [FileCache] in a directory
// beside the state file, [CacheDirFor]), Resolve keeps every document it
// verified as the signed pages the registry sent, byte for byte, per
// registry, token and query. [Client.ResolveCached] falls back on that
// copy only when the registry cannot be reached (connection refused or
// reset, timeout, DNS failure, 502/503/504; never after a refusal such
// as 401/403/404 or a document that does not verify), verifies it again
// exactly like a fresh one (signature, freshness now, query, sequence not
// below the last accepted) and says so in its [Resolution] (Cached,
// ReadAt). An expired, tampered, corrupt or rolled-back copy is an error
// wrapping [ErrUnreachable] that names both causes and the file: the
// fallback lasts until the document expires, then fails closed.
//
// [Compare] checks a tools/list against an entry's pins locally, per tool,
// with no network. [Client.Gate] turns that into a [Decision]: a match is
// allowed; otherwise a served tool the signed pins do not cover (changed or
// added) is blocked whatever the registry's unsigned connect-time check
// ([Client.Check]) answers, the other tools staying usable ([Partial],
// [Decision.ToolAllowed]); changed instructions block the server. The check
// can only add to that: quarantine-class drift, an empty or unknown answer,
// or a failed check block the server. [Warn] is left for differences no pin
// covers, such as a removed tool (blocked under [Policy].BlockWarn).
//
// [ParseHostConfig] reads the common host configuration files
// ({"mcpServers": {...}}, VS Code's {"servers": {...}}); [Match] finds the
// allowlist entry a configured server stands for, and
// [Client.CheckServers] does the whole round for a configuration: match,
// connect (package scan), pin, gate. Servers without a matching entry are
// never started or contacted.
//
// Errors wrap the sentinels in errors.go; test them with errors.Is.
package hostclient

// Package contract reads, normalises, checks and compares capability
// contracts: the operating contract a reviewer approves with an MCP server
// version (auth mode, token audience, scopes and lifetime, user
// delegation, allowed host environments, isolation, network egress,
// secrets by name, result handling, replay protection; per tool a risk
// tier, side effect, approval rule, timeout and idempotency rule).
//
// The package is pure: no storage, no transport. The flow at submission:
//
//	raw, found, err := contract.FromServerJSONMeta(serverJSON) // or the contract file submitted beside it
//	c, err := contract.Parse(raw, contract.Limits{})            // contract.Default() when there is none
//	findings := contract.Check(c, snapshotTools, contract.CheckOptions{})
//	n := c.Normalize(snapshotToolNames)                        // the served form
//	hash, err := n.Hash()                                      // contract_hash
//	widenings := contract.Widenings(previousApproved, n)       // each needs a reviewer's acknowledgement
//
// Documents are YAML or JSON (format version "mcpreg.contract/v1"),
// validated against SchemaJSON (JSON Schema 2020-12, compiled from the
// embedded copy with a loader that refuses every URL). The normalised form
// (NormalizedSchemaJSON) has every member present, defaults filled in,
// durations in whole seconds and lists sorted, so a host can re-hash what
// it received: contract_hash = sha256("mcpreg-pin-v1/contract\n" ||
// JCS(normalised contract)), as pin.ContractHash computes it.
//
// docs/contract.md documents the document format, the defaults,
// the checks and the widening order of every member; the golden vectors in
// testdata/contract at the repository root pin the served form and hash.
package contract

package hostclient

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/pin"
)

// ToolStatus is how one tool compares with the pins.
type ToolStatus string

// Tool statuses.
const (
	ToolMatch   ToolStatus = "match"   // same tool_hash as pinned
	ToolChanged ToolStatus = "changed" // pinned, served with another hash
	ToolAdded   ToolStatus = "added"   // served, not pinned
	ToolRemoved ToolStatus = "removed" // pinned, not served
	// ToolOutOfScope is a pinned tool not served that the registry's scan
	// credentials saw only with scopes (discovery.ToolPin.Scopes): a
	// host whose token lacks them is not shown it, which is not drift.
	ToolOutOfScope ToolStatus = "out_of_scope"
)

// ToolComparison is one tool, pinned or served.
type ToolComparison struct {
	Name         string     `json:"name"`
	Status       ToolStatus `json:"status"`
	PinnedHash   string     `json:"pinnedHash,omitempty"`
	ObservedHash string     `json:"observedHash,omitempty"`
}

// Comparison is a local comparison of a tools list with an entry's pins.
type Comparison struct {
	// Match is true only when every tool matches, none was added or
	// removed, the tool definition hash is the pinned one, when the
	// entry pins instructions so is the instructions hash and, under
	// mcpreg-pin-v2, so is the prompts hash.
	Match bool `json:"match"`
	// Tools are every pinned or served tool, by name.
	Tools []ToolComparison `json:"tools"`
	// ToolDefinitionHash is the served list's hash ("" if it cannot be
	// pinned, see Problem).
	ToolDefinitionHash  string `json:"toolDefinitionHash,omitempty"`
	InstructionsChanged bool   `json:"instructionsChanged,omitempty"`
	// PromptsChanged is set when the entry is pinned under mcpreg-pin-v2
	// and the served prompts (with the messages of those that take no
	// required argument) do not hash to its promptsHash.
	PromptsChanged bool `json:"promptsChanged,omitempty"`
	// Problem says why the served list could not be pinned.
	Problem string `json:"problem,omitempty"`
}

// Compare checks tools against e's pins, per tool, without the network.
// A nil tools list compares as an empty one. Under mcpreg-pin-v2 the
// prompts of tools are compared too (resources are data a host does not
// pin); pass what the server listed (scan.Snapshot.ModelList).
func Compare(e discovery.Entry, tools *pin.ToolsList) Comparison {
	if tools == nil {
		tools = &pin.ToolsList{}
	}
	out := Comparison{Tools: compareTools(e.Pins.Tools, tools.Tools)}
	var pins pin.PinsV2
	var err error
	if e.Pins.SpecVersion == pin.SpecVersionV2 {
		pins, err = pin.ComputeV2(tools)
	} else {
		pins.Pins, err = pin.Compute(tools)
	}
	if err != nil {
		out.Problem = err.Error()
		return out
	}
	out.ToolDefinitionHash = pins.ToolDefinitionHash
	out.InstructionsChanged = e.Pins.InstructionsHash != "" && pins.InstructionsHash != e.Pins.InstructionsHash
	out.PromptsChanged = e.Pins.SpecVersion == pin.SpecVersionV2 && pins.PromptsHash != e.Pins.PromptsHash
	// With tools out of this host's scopes the served list hashes
	// differently; each served tool still matches its own pin.
	sameList := pins.ToolDefinitionHash == e.Pins.ToolDefinitionHash || out.count(ToolOutOfScope) > 0
	out.Match = e.Pins.ToolDefinitionHash != "" && sameList &&
		!out.InstructionsChanged && !out.PromptsChanged && out.count(ToolMatch)+out.count(ToolOutOfScope) == len(out.Tools)
	return out
}

// compareTools gives every pinned or served tool its status, by name.
func compareTools(pinned []discovery.ToolPin, served []pin.Tool) []ToolComparison {
	byName := map[string]*ToolComparison{}
	for _, p := range pinned {
		status := ToolRemoved
		if len(p.Scopes) > 0 {
			status = ToolOutOfScope
		}
		byName[p.Name] = &ToolComparison{Name: p.Name, Status: status, PinnedHash: p.Hash}
	}
	for _, t := range served {
		tc := byName[t.Name]
		if tc == nil {
			tc = &ToolComparison{Name: t.Name, Status: ToolAdded}
			byName[t.Name] = tc
		}
		hash, err := pin.ToolHash(t.Raw)
		tc.ObservedHash = hash
		if tc.PinnedHash != "" {
			tc.Status = ToolChanged
			if err == nil && hash == tc.PinnedHash {
				tc.Status = ToolMatch
			}
		}
	}
	out := make([]ToolComparison, 0, len(byName))
	for _, tc := range byName {
		out = append(out, *tc)
	}
	slices.SortFunc(out, func(a, b ToolComparison) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (c Comparison) count(s ToolStatus) int {
	n := 0
	for _, t := range c.Tools {
		if t.Status == s {
			n++
		}
	}
	return n
}

// Summary says what differs, e.g. "1 changed (get_forecast)".
func (c Comparison) Summary() string {
	if c.Problem != "" {
		return "the served tools cannot be pinned: " + c.Problem
	}
	var parts []string
	for _, s := range []ToolStatus{ToolChanged, ToolAdded, ToolRemoved} {
		var names []string
		for _, t := range c.Tools {
			if t.Status == s {
				names = append(names, t.Name)
			}
		}
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(names), s, strings.Join(names, ", ")))
		}
	}
	if c.InstructionsChanged {
		parts = append(parts, "instructions changed")
	}
	if c.PromptsChanged {
		parts = append(parts, "prompts changed")
	}
	if len(parts) == 0 && !c.Match {
		parts = append(parts, "tool definition hash differs")
	}
	if len(parts) == 0 {
		return "every tool matches the pins"
	}
	return strings.Join(parts, "; ")
}

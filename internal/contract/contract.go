package contract

// Contract is a contract document as submitted, after validation: members
// the document left out are zero (nil pointers, nil slices, empty strings),
// durations are whole seconds. Normalize fills in the defaults.
type Contract struct {
	// Owner is the owning team; empty only in the default contract.
	Owner string
	Auth  AuthSpec
	// HostEnvironments lists the allowed host environment labels; nil
	// means the document did not restrict them.
	HostEnvironments []string
	Isolation        Isolation
	// Egress.Mode is empty when the document left egress out.
	Egress           Egress
	Secrets          []Secret
	ResultHandling   ResultHandlingSpec
	ReplayProtection ReplayProtection // empty: left out
	// Tools are the entries in document order: Tools[i] is at /tools/i.
	Tools []ToolSpec

	input []byte // the document as strict JSON (YAML converted)
}

// AuthSpec is the auth member as submitted.
type AuthSpec struct {
	Mode                   AuthMode
	TokenAudience          *string
	Scopes                 []string
	TokenTTLSeconds        *int64
	UserDelegationRequired *bool
}

// ResultHandlingSpec is the resultHandling member as submitted; nil
// members were left out.
type ResultHandlingSpec struct {
	UntrustedContentFiltering *bool
	BoundaryMarkers           *bool
}

// ToolSpec is one tools entry as submitted; nil members were left out.
type ToolSpec struct {
	Name           string
	RiskTier       RiskTier
	SideEffect     *SideEffect
	Approval       *Approval
	TimeoutSeconds *int64
	Idempotency    *Idempotency
}

// Default returns the contract of a version submitted without one: no
// owner, no credentials (auth none), the most isolated profile, egress
// denied, no secrets, results filtered and marked, the strongest replay
// protection, no restriction on host environments, and no tool entries, so
// that every tool gets the strictest defaults.
func Default() *Contract {
	return &Contract{Auth: AuthSpec{Mode: AuthNone}, Isolation: IsolationRemoteEphemeralSandbox}
}

// InputJSON returns the submitted document as strict JSON (a YAML document
// converted), exactly as it was validated; nil for Default(). The pointers
// of Check findings refer to this document.
func (c *Contract) InputJSON() []byte { return c.input }

// ToolNames returns the names of the tool entries, in document order.
func (c *Contract) ToolNames() []string {
	names := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		names[i] = t.Name
	}
	return names
}

// toolIndex maps each entry's name to its index in Tools.
func (c *Contract) toolIndex() map[string]int {
	idx := make(map[string]int, len(c.Tools))
	for i, t := range c.Tools {
		idx[t.Name] = i
	}
	return idx
}

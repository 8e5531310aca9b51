package contract

// Version is the only contractVersion this package reads and serves.
const Version = "mcpreg.contract/v1"

// AuthMode is how the server authenticates the calls it receives.
type AuthMode string

// Auth modes.
const (
	AuthNone           AuthMode = "none"
	AuthPlatformOAuth  AuthMode = "platform_oauth"
	AuthDelegatedOAuth AuthMode = "delegated_oauth"
	AuthAPIKey         AuthMode = "api_key"
	AuthMTLS           AuthMode = "mtls"
)

// IsOAuth reports whether the mode issues OAuth access tokens.
func (m AuthMode) IsOAuth() bool { return m == AuthPlatformOAuth || m == AuthDelegatedOAuth }

// Isolation is the profile the server runs under.
type Isolation string

// Isolation profiles.
const (
	IsolationLocalProcess           Isolation = "local_process"
	IsolationContainer              Isolation = "container"
	IsolationRemoteManaged          Isolation = "remote_managed"
	IsolationRemoteEphemeralSandbox Isolation = "remote_ephemeral_sandbox"
)

// EgressMode is the outbound network the server may use.
type EgressMode string

// Egress modes, narrowest first (see egressWider for the order).
const (
	EgressDenied              EgressMode = "denied"
	EgressInternalOnly        EgressMode = "internal_only"
	EgressBrokeredGateway     EgressMode = "brokered_gateway"
	EgressAllowlistedExternal EgressMode = "allowlisted_external"
)

// ReplayProtection is how requests are protected against replay and
// tampering.
type ReplayProtection string

// Replay protections, weakest first.
const (
	ReplayNone                        ReplayProtection = "none"
	ReplayNonce                       ReplayProtection = "nonce"
	ReplayNonceAndTraceBoundSignature ReplayProtection = "nonce_and_trace_bound_signature"
)

// RiskTier classifies a tool by the harm a wrong call can do.
type RiskTier string

// Risk tiers, lowest first.
const (
	TierRead              RiskTier = "read"
	TierWrite             RiskTier = "write"
	TierHighRiskExecution RiskTier = "high_risk_execution"
)

// SideEffect says whether a tool changes state outside the call.
type SideEffect string

// Side effects.
const (
	SideEffectNone          SideEffect = "none"
	SideEffectExternalWrite SideEffect = "external_write"
)

// ApprovalMode says when a human must approve a call.
type ApprovalMode string

// Approval modes, weakest first.
const (
	ApprovalNone        ApprovalMode = "none"
	ApprovalConditional ApprovalMode = "conditional"
	ApprovalAlways      ApprovalMode = "always"
)

// Idempotency says whether a retried call is safe as it is.
type Idempotency string

// Idempotency rules.
const (
	// Idempotent: repeating the call with the same arguments is safe.
	Idempotent Idempotency = "idempotent"
	// RequiresKey: the caller chooses an idempotency key per logical
	// operation and repeats it on retries.
	RequiresKey Idempotency = "requires_key"
)

// Egress is the outbound network rule. Allow lists destinations and is
// non-empty exactly when Mode is allowlisted_external.
type Egress struct {
	Mode  EgressMode `json:"mode"`
	Allow []string   `json:"allow"`
}

// Secret names one secret the server receives. The name is a reference to
// where the secret is kept, never its value.
type Secret struct {
	Name string `json:"name"`
}

// Approval is a tool's approval rule. Rule is the rule text when Mode is
// conditional, and nil otherwise.
type Approval struct {
	Mode ApprovalMode `json:"mode"`
	Rule *string      `json:"rule"`
}

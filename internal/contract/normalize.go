package contract

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/pin"
)

// DefaultTimeoutSeconds is the timeout of a tool whose entry gives none,
// and of a tool without an entry.
const DefaultTimeoutSeconds = 10

// Normalized is a contract as the registry serves it and as contract_hash
// covers it: every member present, defaults filled in, durations in whole
// seconds, lists sorted (byte order) without duplicates, one tool entry per
// tool of the snapshot, sorted by name. Its JSON form is described by
// NormalizedSchemaJSON.
type Normalized struct {
	ContractVersion string `json:"contractVersion"`
	// Owner is nil only in the default contract.
	Owner            *string          `json:"owner"`
	Auth             Auth             `json:"auth"`
	HostEnvironments HostEnvironments `json:"hostEnvironments"`
	Isolation        Isolation        `json:"isolation"`
	Egress           Egress           `json:"egress"`
	Secrets          []Secret         `json:"secrets"`
	ResultHandling   ResultHandling   `json:"resultHandling"`
	ReplayProtection ReplayProtection `json:"replayProtection"`
	Tools            []Tool           `json:"tools"`
}

// Auth is the normalised auth member.
type Auth struct {
	Mode AuthMode `json:"mode"`
	// TokenAudience is nil when the document named none (auth mode none,
	// and optionally api_key or mtls).
	TokenAudience *string  `json:"tokenAudience"`
	Scopes        []string `json:"scopes"`
	// TokenTTLSeconds is nil when no lifetime was declared: tokens or keys
	// do not expire as far as the contract says.
	TokenTTLSeconds        *int64 `json:"tokenTtlSeconds"`
	UserDelegationRequired bool   `json:"userDelegationRequired"`
}

// HostEnvironments says which host environments may connect: any of them
// when Restricted is false (Allow is then empty), else only those whose
// label is in Allow (never empty). A host enforces it as
// !Restricted || slices.Contains(Allow, myLabel).
type HostEnvironments struct {
	Restricted bool     `json:"restricted"`
	Allow      []string `json:"allow"`
}

// ResultHandling says what the host does with tool results before the
// model sees them: filter them as untrusted content, and wrap them in
// boundary markers.
type ResultHandling struct {
	UntrustedContentFiltering bool `json:"untrustedContentFiltering"`
	BoundaryMarkers           bool `json:"boundaryMarkers"`
}

// Tool is the normalised rule for one tool.
type Tool struct {
	Name           string      `json:"name"`
	RiskTier       RiskTier    `json:"riskTier"`
	SideEffect     SideEffect  `json:"sideEffect"`
	Approval       Approval    `json:"approval"`
	TimeoutSeconds int64       `json:"timeoutSeconds"`
	Idempotency    Idempotency `json:"idempotency"`
}

// StrictestTool returns the rule of a tool without an entry: high-risk
// execution with external writes, approval always, the default timeout,
// and a caller-chosen idempotency key.
func StrictestTool(name string) Tool {
	return toolDefaults(ToolSpec{Name: name, RiskTier: TierHighRiskExecution})
}

// Normalize returns the contract as served for a version whose snapshot
// has the given tools: exactly one entry per distinct name in toolNames,
// taken from the document or, for a tool without an entry, StrictestTool.
// Entries naming tools outside toolNames are dropped (Check reports them).
// Pass c.ToolNames() to normalise the declared tools alone.
func (c *Contract) Normalize(toolNames []string) Normalized {
	return Normalized{
		ContractVersion:  Version,
		Owner:            nonEmpty(c.Owner),
		Auth:             c.Auth.normalize(),
		HostEnvironments: hostEnvironments(c.HostEnvironments),
		Isolation:        c.Isolation,
		Egress:           c.Egress.normalize(),
		Secrets:          sortedSecrets(c.Secrets),
		ResultHandling:   c.ResultHandling.normalize(),
		ReplayProtection: cmp.Or(c.ReplayProtection, ReplayNonceAndTraceBoundSignature),
		Tools:            c.normalizeTools(toolNames),
	}
}

func (a AuthSpec) normalize() Auth {
	delegation := a.Mode == AuthDelegatedOAuth
	if a.UserDelegationRequired != nil {
		delegation = *a.UserDelegationRequired
	}
	return Auth{
		Mode:                   a.Mode,
		TokenAudience:          a.TokenAudience,
		Scopes:                 sortedSet(a.Scopes),
		TokenTTLSeconds:        a.TokenTTLSeconds,
		UserDelegationRequired: delegation,
	}
}

func hostEnvironments(labels []string) HostEnvironments {
	return HostEnvironments{Restricted: labels != nil, Allow: sortedSet(labels)}
}

func (e Egress) normalize() Egress {
	allow := make([]string, len(e.Allow))
	for i, h := range e.Allow {
		allow[i] = strings.ToLower(h)
	}
	return Egress{Mode: cmp.Or(e.Mode, EgressDenied), Allow: sortedSet(allow)}
}

func (r ResultHandlingSpec) normalize() ResultHandling {
	return ResultHandling{
		UntrustedContentFiltering: valueOr(r.UntrustedContentFiltering, true),
		BoundaryMarkers:           valueOr(r.BoundaryMarkers, true),
	}
}

func (c *Contract) normalizeTools(toolNames []string) []Tool {
	names, idx := sortedSet(toolNames), c.toolIndex()
	tools := make([]Tool, len(names))
	for i, name := range names {
		if j, ok := idx[name]; ok {
			tools[i] = toolDefaults(c.Tools[j])
		} else {
			tools[i] = StrictestTool(name)
		}
	}
	return tools
}

// toolDefaults fills in the members an entry left out: side effect none
// for read tools and external_write otherwise, approval always, the
// default timeout, idempotent for read tools and requires_key otherwise.
func toolDefaults(s ToolSpec) Tool {
	read := s.RiskTier == TierRead
	side, idem := SideEffectExternalWrite, RequiresKey
	if read {
		side, idem = SideEffectNone, Idempotent
	}
	return Tool{
		Name:           s.Name,
		RiskTier:       s.RiskTier,
		SideEffect:     valueOr(s.SideEffect, side),
		Approval:       valueOr(s.Approval, Approval{Mode: ApprovalAlways}),
		TimeoutSeconds: valueOr(s.TimeoutSeconds, DefaultTimeoutSeconds),
		Idempotency:    valueOr(s.Idempotency, idem),
	}
}

// JSON returns the normalised contract exactly as the registry serves it:
// compact, members in the order of the Go types, no HTML escaping.
func (n Normalized) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(n.withEmptyLists()); err != nil {
		panic("contract: marshal normalised contract: " + err.Error()) // plain data: cannot fail
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Hash returns the contract_hash: sha256("mcpreg-pin-v1/contract\n" ||
// JCS(n.JSON())), written "sha256:<hex>".
func (n Normalized) Hash() (string, error) {
	return pin.ContractHash(n.JSON())
}

// withEmptyLists replaces nil slices by empty ones, so that a Normalized
// built by hand still serves [] rather than null.
func (n Normalized) withEmptyLists() Normalized {
	n.Auth.Scopes = orEmpty(n.Auth.Scopes)
	n.HostEnvironments.Allow = orEmpty(n.HostEnvironments.Allow)
	n.Egress.Allow = orEmpty(n.Egress.Allow)
	n.Secrets = orEmpty(n.Secrets)
	n.Tools = orEmpty(n.Tools)
	return n
}

func sortedSecrets(ss []Secret) []Secret {
	out := slices.Clone(orEmpty(ss))
	slices.SortFunc(out, func(a, b Secret) int { return strings.Compare(a.Name, b.Name) })
	return slices.Compact(out)
}

// sortedSet returns the distinct strings of ss in byte order, never nil.
func sortedSet(ss []string) []string {
	out := slices.Clone(orEmpty(ss))
	slices.Sort(out)
	return slices.Compact(out)
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func valueOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

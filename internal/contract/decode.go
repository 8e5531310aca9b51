package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// inputDoc is the document's JSON form after schema validation. Members
// with more than one accepted form stay raw.
type inputDoc struct {
	Owner string `json:"owner"`
	Auth  struct {
		Mode                   AuthMode        `json:"mode"`
		TokenAudience          *string         `json:"tokenAudience"`
		Scopes                 []string        `json:"scopes"`
		TokenTTL               json.RawMessage `json:"tokenTtl"`
		UserDelegationRequired *bool           `json:"userDelegationRequired"`
	} `json:"auth"`
	HostEnvironments []string  `json:"hostEnvironments"`
	Isolation        Isolation `json:"isolation"`
	Egress           Egress    `json:"egress"`
	Secrets          []Secret  `json:"secrets"`
	ResultHandling   struct {
		UntrustedContentFiltering *bool `json:"untrustedContentFiltering"`
		BoundaryMarkers           *bool `json:"boundaryMarkers"`
	} `json:"resultHandling"`
	ReplayProtection ReplayProtection `json:"replayProtection"`
	Tools            []inputTool      `json:"tools"`
}

type inputTool struct {
	Name        string          `json:"name"`
	RiskTier    RiskTier        `json:"riskTier"`
	SideEffect  *SideEffect     `json:"sideEffect"`
	Approval    json.RawMessage `json:"approval"`
	Timeout     json.RawMessage `json:"timeout"`
	Idempotency *Idempotency    `json:"idempotency"`
}

// decode builds a Contract from a document that passed validation.
func decode(js []byte) (*Contract, error) {
	var in inputDoc
	if err := json.Unmarshal(js, &in); err != nil {
		return nil, fmt.Errorf("contract: decode validated document: %w", err)
	}
	ttl, err := optionalDuration(in.Auth.TokenTTL, MaxTokenTTLSeconds)
	if err != nil {
		return nil, err
	}
	c := &Contract{
		Owner: in.Owner,
		Auth: AuthSpec{
			Mode:                   in.Auth.Mode,
			TokenAudience:          in.Auth.TokenAudience,
			Scopes:                 in.Auth.Scopes,
			TokenTTLSeconds:        ttl,
			UserDelegationRequired: in.Auth.UserDelegationRequired,
		},
		HostEnvironments: in.HostEnvironments,
		Isolation:        in.Isolation,
		Egress:           in.Egress,
		Secrets:          in.Secrets,
		ResultHandling: ResultHandlingSpec{
			UntrustedContentFiltering: in.ResultHandling.UntrustedContentFiltering,
			BoundaryMarkers:           in.ResultHandling.BoundaryMarkers,
		},
		ReplayProtection: in.ReplayProtection,
	}
	for _, t := range in.Tools {
		spec, err := t.spec()
		if err != nil {
			return nil, err
		}
		c.Tools = append(c.Tools, spec)
	}
	return c, nil
}

func (t inputTool) spec() (ToolSpec, error) {
	timeout, err := optionalDuration(t.Timeout, MaxTimeoutSeconds)
	if err != nil {
		return ToolSpec{}, err
	}
	approval, err := decodeApproval(t.Approval)
	if err != nil {
		return ToolSpec{}, err
	}
	return ToolSpec{
		Name: t.Name, RiskTier: t.RiskTier, SideEffect: t.SideEffect,
		Approval: approval, TimeoutSeconds: timeout, Idempotency: t.Idempotency,
	}, nil
}

// decodeApproval reads "none", "always" or {mode, rule}; nil when absent.
func decodeApproval(raw json.RawMessage) (*Approval, error) {
	if raw == nil {
		return nil, nil
	}
	var a Approval
	if bytes.HasPrefix(raw, []byte(`"`)) {
		if err := json.Unmarshal(raw, &a.Mode); err != nil {
			return nil, fmt.Errorf("contract: decode validated approval: %w", err)
		}
		return &a, nil
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("contract: decode validated approval: %w", err)
	}
	return &a, nil
}

// optionalDuration reads a validated duration member; nil when absent.
func optionalDuration(raw json.RawMessage, maxSecs int64) (*int64, error) {
	if raw == nil {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("contract: decode validated duration: %w", err)
	}
	secs, msg := durationSeconds(v, maxSecs)
	if msg != "" {
		return nil, fmt.Errorf("contract: validated duration: %s", msg)
	}
	return &secs, nil
}

package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/ent"
	livescan "github.com/mcpreg/mcpreg/scan"
)

// Findings of comparing a remote's OAuth metadata with its contract.
const (
	// KindScopesBeyondContract: the server offers scopes the contract
	// does not declare.
	KindScopesBeyondContract = "auth.scopes_beyond_contract"
	// KindAudienceMismatch: the resource (token audience) the server
	// names is not the contract's tokenAudience.
	KindAudienceMismatch = "auth.audience_mismatch"
)

// authRecord is what drift compares of a remote's OAuth metadata: the
// resource (token audience) and the authorization servers. Both are empty
// for a remote that publishes none.
type authRecord struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorizationServers"`
}

// authOf is the record of a reading as stored JSON, or nil when unknown:
// not a remote, or metadata that could not be read (a finding says why).
func authOf(rd reading) []byte {
	if !rd.remote || rd.snap == nil {
		return nil
	}
	rec := authRecord{AuthorizationServers: []string{}}
	if a := rd.snap.Auth; a != nil {
		rec.Resource = a.Resource
		rec.AuthorizationServers = slices.Sorted(slices.Values(a.AuthorizationServers))
	} else if slices.ContainsFunc(rd.snap.Findings, func(f finding.Finding) bool {
		return f.Kind == livescan.KindAuthMetadataRefused || f.Kind == livescan.KindAuthMetadataUnreadable
	}) {
		return nil
	}
	out, err := json.Marshal(rec)
	if err != nil {
		return nil
	}
	return out
}

// authDrift compares the approved record with a scan's: a changed
// authorization server or audience is auth_changed (tokens would come from
// another party, or be meant for another resource). Unknown on either
// side compares as nothing.
func authDrift(p diffreview.Policy, approved, live []byte) []diffreview.Change {
	var a, b authRecord
	if approved == nil || live == nil || json.Unmarshal(approved, &a) != nil || json.Unmarshal(live, &b) != nil {
		return nil
	}
	var out []diffreview.Change
	if a.Resource != b.Resource {
		out = append(out, diffreview.Change{Class: diffreview.ClassAuthChanged, Pointer: "/auth/resource",
			Before: a.Resource, After: b.Resource,
			Message: fmt.Sprintf("the resource (token audience) in the server's OAuth metadata changed from %s to %s", orNone(a.Resource), orNone(b.Resource))})
	}
	if !slices.Equal(a.AuthorizationServers, b.AuthorizationServers) {
		out = append(out, diffreview.Change{Class: diffreview.ClassAuthChanged, Pointer: "/auth/authorizationServers",
			Before: strings.Join(a.AuthorizationServers, " "), After: strings.Join(b.AuthorizationServers, " "),
			Message: fmt.Sprintf("the authorization servers in the server's OAuth metadata changed from %s to %s: tokens would be issued by another party",
				orNone(strings.Join(a.AuthorizationServers, ", ")), orNone(strings.Join(b.AuthorizationServers, ", ")))})
	}
	for i := range out {
		r := p.RuleFor(out[i])
		out[i].Severity, out[i].Action = r.Severity, r.Action
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// authFindings compares what a remote says about its authorization with
// the version's contract: scopes offered beyond the contract's, and a
// resource that is not the contract's token audience.
func authFindings(n contract.Normalized, a *livescan.AuthMetadata) []finding.Finding {
	if a == nil {
		return nil
	}
	var out []finding.Finding
	var extra []string
	for _, sc := range a.ScopesSupported {
		if !slices.Contains(n.Auth.Scopes, sc) && !slices.Contains(extra, sc) {
			extra = append(extra, sc)
		}
	}
	if len(extra) > 0 {
		out = append(out, finding.Finding{Kind: KindScopesBeyondContract, Severity: finding.Medium, Pointer: "/auth/scopes",
			Evidence: strings.Join(extra, " "),
			Message: fmt.Sprintf("the server's OAuth metadata (%s) offers scopes the contract does not declare (%s); the contract declares %s",
				a.MetadataURL, strings.Join(extra, ", "), orNone(strings.Join(n.Auth.Scopes, ", ")))})
	}
	if aud := n.Auth.TokenAudience; aud != nil && *aud != "" && strings.TrimSuffix(*aud, "/") != strings.TrimSuffix(a.Resource, "/") {
		out = append(out, finding.Finding{Kind: KindAudienceMismatch, Severity: finding.Medium, Pointer: "/auth/tokenAudience",
			Evidence: a.Resource,
			Message:  fmt.Sprintf("the server's OAuth metadata names resource %s, the contract's token audience is %s", orNone(a.Resource), *aud)})
	}
	return out
}

// contractAuthFindings are authFindings under the version's contract.
func contractAuthFindings(v *ent.Version, a *livescan.AuthMetadata) ([]finding.Finding, error) {
	if a == nil {
		return nil, nil
	}
	n, err := contract.DecodeNormalized([]byte(v.Contract))
	if err != nil {
		return nil, fmt.Errorf("stored contract of version %d: %w", v.ID, err)
	}
	return authFindings(n, a), nil
}

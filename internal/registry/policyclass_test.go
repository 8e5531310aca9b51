package registry_test

import (
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/registry"
)

func TestPolicyWeakenings(t *testing.T) {
	rel := attest.Identity{Issuer: "https://issuer.acme.example", SAN: "release@acme.example"}
	ci := attest.Identity{Issuer: "https://issuer.acme.example", SANRegexp: `^https://github\.com/acme/[^/]+/\.github/workflows/release\.yml@refs/tags/v.*$`}
	base := func() *attest.Policy {
		return &attest.Policy{Required: true, TrustedRoot: "acme", Identities: []attest.Identity{rel, ci},
			PublicKeys: []string{"PEM-A", "PEM-B"}, PredicateTypes: []string{"https://slsa.dev/provenance/v1"},
			SourceRepository: "https://github.com/acme/weather", SourceRepositoryRef: "refs/heads/main"}
	}
	edit := func(f func(p *attest.Policy)) registry.Policy {
		p := base()
		f(p)
		return registry.Policy{RequireContract: true, Attestation: p}
	}
	cur := registry.Policy{RequireContract: true, Attestation: base()}
	tests := []struct {
		name          string
		before, after registry.Policy
		weakens       string // "" means narrowing
	}{
		{"no change", cur, cur, ""},
		{"zero to zero", registry.Policy{}, registry.Policy{}, ""},
		{"requireContract on", registry.Policy{}, registry.Policy{RequireContract: true}, ""},
		{"same policy rebuilt", cur, edit(func(*attest.Policy) {}), ""},
		{"requireContract turned off", cur, registry.Policy{Attestation: base()}, "requireContract turned off"},
		{"one of two identities removed", cur, edit(func(p *attest.Policy) { p.Identities = p.Identities[:1] }), ""},
		{"identities reordered", cur, edit(func(p *attest.Policy) { p.Identities = []attest.Identity{ci, rel} }), ""},
		{"identity added", cur, edit(func(p *attest.Policy) {
			p.Identities = append(p.Identities, attest.Identity{Issuer: rel.Issuer, SAN: "x@evil"})
		}), "identities[2] added or changed"},
		{"exact SAN changed", cur, edit(func(p *attest.Policy) { p.Identities[0].SAN = "other@acme.example" }), "identities[0]"},
		{"regexp narrowed is still an edit", cur, edit(func(p *attest.Policy) { p.Identities[1].SANRegexp = `^https://github\.com/acme/weather/x$` }), "identities[1]"},
		{"exact issuer to regexp", cur, edit(func(p *attest.Policy) {
			p.Identities[0].Issuer, p.Identities[0].IssuerRegexp = "", `^https://issuer\.acme\.example$`
		}), "identities[0]"},
		{"key removed", cur, edit(func(p *attest.Policy) { p.PublicKeys = p.PublicKeys[1:] }), ""},
		{"key added", cur, edit(func(p *attest.Policy) { p.PublicKeys = append(p.PublicKeys, "PEM-C") }), "publicKeys[2]"},
		{"key replaced", cur, edit(func(p *attest.Policy) { p.PublicKeys[0] = "PEM-C" }), "publicKeys[0]"},
		{"trusted root changed", cur, edit(func(p *attest.Policy) { p.TrustedRoot = "other" }), "trustedRoot"},
		{"trusted root to default", cur, edit(func(p *attest.Policy) { p.TrustedRoot = "" }), "trustedRoot"},
		{"predicate type added", cur, edit(func(p *attest.Policy) { p.PredicateTypes = append(p.PredicateTypes, "https://evil/v1") }), "predicateTypes[1]"},
		{"predicate types removed", cur, edit(func(p *attest.Policy) { p.PredicateTypes = nil }), "any predicate type"},
		{"predicate types restricted from any", registry.Policy{RequireContract: true, Attestation: func() *attest.Policy { p := base(); p.PredicateTypes = nil; return p }()}, cur, ""},
		{"sourceRepository removed", cur, edit(func(p *attest.Policy) { p.SourceRepository, p.SourceRepositoryRef = "", "" }), "sourceRepository removed"},
		{"sourceRepository changed", cur, edit(func(p *attest.Policy) { p.SourceRepository = "https://github.com/evil/weather" }), "sourceRepository changed"},
		{"sourceRepositoryRef removed", cur, edit(func(p *attest.Policy) { p.SourceRepositoryRef = "" }), "sourceRepositoryRef removed"},
		{"sourceRepository added", edit(func(p *attest.Policy) { p.SourceRepository, p.SourceRepositoryRef = "", "" }), cur, ""},
		{"allowUnfetchedDigests turned on", cur, edit(func(p *attest.Policy) { p.AllowUnfetchedDigests = true }), "allowUnfetchedDigests turned on"},
		{"allowUnfetchedDigests turned off", edit(func(p *attest.Policy) { p.AllowUnfetchedDigests = true }), cur, ""},
		{"required turned on", edit(func(p *attest.Policy) { p.Required = false }), cur, ""},
		{"required turned off", cur, edit(func(p *attest.Policy) { p.Required = false }), "required turned off"},
		{"required policy removed", cur, registry.Policy{RequireContract: true}, "required attestation policy removed"},
		{"optional policy removed", edit(func(p *attest.Policy) { p.Required = false }), registry.Policy{RequireContract: true}, ""},
		{"policy added where none was", registry.Policy{RequireContract: true}, cur, "trusts signers where none were trusted"},
		{"several at once", cur, edit(func(p *attest.Policy) { p.Required, p.TrustedRoot = false, "other" }), "required turned off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := registry.PolicyWeakenings(tt.before, tt.after)
			if tt.weakens == "" {
				if len(got) != 0 {
					t.Fatalf("narrowing classified as weakening: %q", got)
				}
				return
			}
			if len(got) == 0 || !strings.Contains(strings.Join(got, "; "), tt.weakens) {
				t.Fatalf("weakenings %q, want one with %q", got, tt.weakens)
			}
		})
	}
}

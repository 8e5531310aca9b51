package attest_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
)

func TestPolicyValidate(t *testing.T) {
	id := attest.Identity{Issuer: githubIssuer, SAN: sigstoreJSSigner}
	withID := func(i attest.Identity) attest.Policy { return attest.Policy{Identities: []attest.Identity{i}} }
	tests := []struct {
		name   string
		policy attest.Policy
		fields []string // every field the error must name; none means valid
	}{
		{"exact identity", withID(id), nil},
		{"empty, not required", attest.Policy{}, nil},
		{"anchored regexps", withID(attest.Identity{IssuerRegexp: `^https://token\.actions\.githubusercontent\.com$`, SANRegexp: `^https://github\.com/acme/[^/]+/\.github/workflows/release\.yml@refs/tags/v.*$`}), nil},
		{"grouped alternation", withID(attest.Identity{Issuer: githubIssuer, SANRegexp: `^(?:a|b)$`}), nil},
		{"anchored alternatives", withID(attest.Identity{Issuer: githubIssuer, SANRegexp: `^a$|^b$`}), nil},
		{"unanchored", withID(attest.Identity{Issuer: githubIssuer, SANRegexp: `https://github\.com/acme/.*`}), []string{"identities[0].sanRegexp"}},
		{"start only", withID(attest.Identity{Issuer: githubIssuer, SANRegexp: `^https://github\.com/acme/`}), []string{"identities[0].sanRegexp"}},
		{"ungrouped alternation", withID(attest.Identity{Issuer: githubIssuer, SANRegexp: `^a|b$`}), []string{"identities[0].sanRegexp"}},
		{"multi-line anchors", withID(attest.Identity{Issuer: githubIssuer, SANRegexp: `(?m)^a$`}), []string{"identities[0].sanRegexp"}},
		{"invalid regexp", withID(attest.Identity{SAN: "x", IssuerRegexp: `^(a$`}), []string{"identities[0].issuerRegexp", "invalid regexp"}},
		{"both issuer forms", withID(attest.Identity{Issuer: "a", IssuerRegexp: "^a$", SAN: "x"}), []string{"identities[0].issuer", "not both"}},
		{"no SAN", withID(attest.Identity{Issuer: "a"}), []string{"identities[0].san"}},
		{"required, nothing", attest.Policy{Required: true}, []string{"identities"}},
		{"bad PEM", attest.Policy{PublicKeys: []string{"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"}}, []string{"publicKeys[0]"}},
		{"ref without repository", attest.Policy{Identities: []attest.Identity{id}, SourceRepositoryRef: "refs/heads/main"}, []string{"sourceRepositoryRef"}},
		{"repository not a URL", attest.Policy{Identities: []attest.Identity{id}, SourceRepository: "acme/weather"}, []string{"sourceRepository"}},
		{"repository with keys only", attest.Policy{PublicKeys: []string{newKeyPEM(t)}, SourceRepository: sigstoreJSRepo}, []string{"sourceRepository"}},
		{"bad root name", attest.Policy{Identities: []attest.Identity{id}, TrustedRoot: "public good"}, []string{"trustedRoot"}},
		{"empty predicate type", attest.Policy{Identities: []attest.Identity{id}, PredicateTypes: []string{""}}, []string{"predicateTypes[0]"}},
		{"several problems", attest.Policy{Identities: []attest.Identity{{SANRegexp: "x"}}, PublicKeys: []string{"nope"}},
			[]string{"identities[0].issuer", "identities[0].sanRegexp", "publicKeys[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Validate()
			if len(tt.fields) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			wantErr(t, err, attest.ErrPolicy, tt.fields...)
			var fe *attest.FieldError
			if !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, tt.fields[0][:5]) {
				t.Errorf("no *FieldError for %s in %v", tt.fields[0], err)
			}
		})
	}
}

func TestPolicyJSON(t *testing.T) {
	p := sigstoreJSPolicy()
	p.TrustedRoot = "acme-private"
	p.PublicKeys = []string{newKeyPEM(t)}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"required":true`, `"identities":[{"issuer":`, `"sourceRepositoryRef":"refs/heads/main"`, `"predicateTypes":[`} {
		if !strings.Contains(string(data), field) {
			t.Errorf("policy JSON %s lacks %s", data, field)
		}
	}
	var back attest.Policy
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, p) || back.Digest() != p.Digest() {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	back.Identities[0].SAN += "x"
	if back.Digest() == p.Digest() {
		t.Error("digest ignores the SAN")
	}
}

func TestCheckPolicy(t *testing.T) {
	v := publicGoodVerifier(t)
	if err := v.CheckPolicy(sigstoreJSPolicy()); err != nil {
		t.Errorf("default root: %v", err)
	}
	p := sigstoreJSPolicy()
	p.TrustedRoot = "acme-private"
	wantErr(t, v.CheckPolicy(p), attest.ErrUnknownRoot, `"acme-private"`)
	p.Identities[0].SANRegexp, p.Identities[0].SAN = ".*", ""
	wantErr(t, v.CheckPolicy(p), attest.ErrPolicy, "identities[0].sanRegexp")
}

package registry

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/mcpreg/mcpreg/attest"
)

// PolicyWeakenings says why changing a server's policy from before to
// after is not provably narrowing; none means it only narrows (or changes
// nothing) and may apply at once. It is conservative: what it cannot prove
// narrowing is a weakening, members it does not know included. Narrowing:
// requireContract turned on; an attestation policy made required; a
// signer (identity, public key) removed; predicate types restricted;
// sourceRepository or sourceRepositoryRef added; a policy that was not
// required removed. Anything else (a signer added or edited, any regexp
// edit, another trusted root, a restriction removed) weakens.
func PolicyWeakenings(before, after Policy) []string {
	var out []string
	if before.RequireContract && !after.RequireContract {
		out = append(out, "requireContract turned off")
	}
	out = append(out, attestWeakenings(before.Attestation, after.Attestation)...)
	b, a := before, after
	b.RequireContract, a.RequireContract, b.Attestation, a.Attestation = false, false, nil, nil
	if !reflect.DeepEqual(b, a) {
		out = append(out, "a policy member the registry cannot classify changed")
	}
	return out
}

// attestMembers are the attest.Policy JSON members attestWeakenings
// classifies; a change of any other is a weakening.
var attestMembers = []string{"required", "trustedRoot", "identities", "sourceRepository",
	"sourceRepositoryRef", "publicKeys", "predicateTypes", "allowUnfetchedDigests"}

func attestWeakenings(before, after *attest.Policy) []string {
	switch {
	case before == nil && after == nil:
		return nil
	case after == nil && before.Required:
		return []string{"required attestation policy removed"}
	case after == nil:
		return nil
	case before == nil:
		return []string{"attestation policy added: it trusts signers where none were trusted"}
	}
	var out []string
	if before.Required && !after.Required {
		out = append(out, "attestation.required turned off")
	}
	if !before.AllowUnfetchedDigests && after.AllowUnfetchedDigests {
		out = append(out, "attestation.allowUnfetchedDigests turned on: digests the registry did not obtain would count")
	}
	if before.TrustedRoot != after.TrustedRoot {
		out = append(out, fmt.Sprintf("attestation.trustedRoot changed from %q to %q", before.TrustedRoot, after.TrustedRoot))
	}
	for i, id := range after.Identities {
		if !slices.Contains(before.Identities, id) {
			out = append(out, fmt.Sprintf("attestation.identities[%d] added or changed (%s)", i, identityText(id)))
		}
	}
	for i, k := range after.PublicKeys {
		if !slices.Contains(before.PublicKeys, k) {
			out = append(out, fmt.Sprintf("attestation.publicKeys[%d] added or changed", i))
		}
	}
	out = append(out, predicateWeakenings(before.PredicateTypes, after.PredicateTypes)...)
	out = append(out, pinnedString("attestation.sourceRepository", before.SourceRepository, after.SourceRepository)...)
	out = append(out, pinnedString("attestation.sourceRepositoryRef", before.SourceRepositoryRef, after.SourceRepositoryRef)...)
	return append(out, unknownMemberChanges(before, after)...)
}

// predicateWeakenings: no predicate types means any; a list narrows to it.
func predicateWeakenings(before, after []string) []string {
	if len(before) == 0 {
		return nil
	}
	if len(after) == 0 {
		return []string{"attestation.predicateTypes removed: any predicate type would be accepted"}
	}
	var out []string
	for i, t := range after {
		if !slices.Contains(before, t) {
			out = append(out, fmt.Sprintf("attestation.predicateTypes[%d] %q added", i, t))
		}
	}
	return out
}

// pinnedString: a restriction may be added, never removed or changed.
func pinnedString(field, before, after string) []string {
	switch {
	case before == "" || before == after:
		return nil
	case after == "":
		return []string{field + " removed"}
	}
	return []string{fmt.Sprintf("%s changed from %q to %q", field, before, after)}
}

// unknownMemberChanges names the attest.Policy members outside
// attestMembers whose JSON differs (new members are weakenings until the
// classifier learns them).
func unknownMemberChanges(before, after *attest.Policy) []string {
	b, a := policyMembers(before), policyMembers(after)
	for _, k := range attestMembers {
		delete(b, k)
		delete(a, k)
	}
	union := maps.Clone(b)
	maps.Copy(union, a)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(union)) {
		if string(b[k]) != string(a[k]) {
			out = append(out, fmt.Sprintf("attestation.%s changed (the registry cannot prove that narrows)", k))
		}
	}
	return out
}

func policyMembers(p *attest.Policy) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	data, _ := json.Marshal(p) // strings and bools always encode
	_ = json.Unmarshal(data, &out)
	return out
}

func identityText(id attest.Identity) string {
	issuer, san := id.Issuer, id.SAN
	if id.IssuerRegexp != "" {
		issuer = "~" + id.IssuerRegexp
	}
	if id.SANRegexp != "" {
		san = "~" + id.SANRegexp
	}
	return "issuer " + issuer + ", san " + san
}

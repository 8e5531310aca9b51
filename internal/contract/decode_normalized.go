package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpreg/mcpreg/pin"
)

// DecodeNormalized reads a normalised contract as served, such as the
// stored contract of the previous approved version: strict JSON that
// satisfies NormalizedSchemaJSON, with lists sorted and tool names unique.
// Rejections are a *ValidationError (ErrInvalid).
func DecodeNormalized(data []byte) (Normalized, error) {
	if err := pin.Validate(data, pin.DefaultLimits()); err != nil {
		return Normalized{}, fromPinError(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return Normalized{}, invalid(Violation{Message: err.Error()})
	}
	sch, err := schemas()
	if err != nil {
		return Normalized{}, err
	}
	if vs := schemaViolations(sch.normalized, doc); len(vs) > 0 {
		return Normalized{}, invalid(vs...)
	}
	var n Normalized
	if err := json.Unmarshal(data, &n); err != nil {
		return Normalized{}, fmt.Errorf("contract: decode validated normalised contract: %w", err)
	}
	if vs := n.orderViolations(); len(vs) > 0 {
		return Normalized{}, invalid(vs...)
	}
	return n, nil
}

// orderViolations reports lists that are not in normalised order.
func (n Normalized) orderViolations() []Violation {
	var vs []Violation
	sorted := func(at string, ss []string) {
		if !slices.IsSorted(ss) || len(slices.Compact(slices.Clone(ss))) != len(ss) {
			vs = append(vs, Violation{Pointer: at, Message: "not sorted by byte order without duplicates"})
		}
	}
	sorted("/auth/scopes", n.Auth.Scopes)
	sorted("/hostEnvironments/allow", n.HostEnvironments.Allow)
	sorted("/egress/allow", n.Egress.Allow)
	sorted("/secrets", mapSlice(n.Secrets, func(s Secret) string { return s.Name }))
	sorted("/tools", mapSlice(n.Tools, func(t Tool) string { return t.Name }))
	for i, h := range n.Egress.Allow {
		if h != strings.ToLower(h) {
			vs = append(vs, Violation{Pointer: fmt.Sprintf("/egress/allow/%d", i), Message: "host names are lower case in the normalised form"})
		}
	}
	return vs
}

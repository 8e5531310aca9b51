package cli

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// noAttestationPolicy is the --attestation-policy value that removes it.
const noAttestationPolicy = "none"

// strictJSON refuses members the API does not know, so a misspelt field
// fails here instead of being silently dropped.
var strictJSON = protojson.UnmarshalOptions{DiscardUnknown: false}

// readAttestationPolicy reads an attestation policy in the API's JSON
// shape; "none" means no policy (nil).
func (g *globals) readAttestationPolicy(path string) (*mcpregv1.AttestationPolicy, error) {
	if path == noAttestationPolicy {
		return nil, nil
	}
	if path == "" {
		return nil, fmt.Errorf("--attestation-policy: want a JSON file, - for standard input, or %s", noAttestationPolicy)
	}
	data, err := g.readInput("--attestation-policy", path)
	if err != nil {
		return nil, err
	}
	p := &mcpregv1.AttestationPolicy{}
	if err := strictJSON.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("--attestation-policy %s: %w", inputName(path), err)
	}
	return p, nil
}

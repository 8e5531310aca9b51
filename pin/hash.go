package pin

import (
	"crypto/sha256"
	"encoding/hex"
)

// SpecVersion names the pin specification mcpreg-pin-v1, which [Compute]
// implements; [SpecVersionV2] names its successor.
const SpecVersion = "mcpreg-pin-v1"

// Domain-separation prefixes; the preimage of each hash is the prefix, a
// newline, and the JCS text.
const (
	domainTool         = SpecVersion + "/tool"
	domainSchema       = SpecVersion + "/schema"
	domainTools        = SpecVersion + "/tools"
	domainInstructions = SpecVersion + "/instructions"
	domainContract     = SpecVersion + "/contract"
)

// digest returns "sha256:<hex>" of domain, "\n" and canonical.
func digest(domain string, canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(domain))
	h.Write([]byte{'\n'})
	h.Write(canonical)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ToolHash returns the tool_hash of one raw tool object. The object must be
// strict JSON with a string "name"; size and depth are not limited here.
func ToolHash(raw []byte) (string, error) {
	t, err := newCanonicalTool(raw)
	if err != nil {
		return "", err
	}
	return digest(domainTool, t.projection), nil
}

// InstructionsHash returns the instructions_hash; nil stands for an absent
// or null "instructions" member, which differs from the empty string.
func InstructionsHash(instructions *string) string {
	return digest(domainInstructions, canonicalInstructions(instructions))
}

// ContractHash returns the contract_hash of a contract, given as any strict
// JSON text; size and depth are not limited here.
func ContractHash(contractJSON []byte) (string, error) {
	if err := validate(contractJSON, unlimited); err != nil {
		return "", err
	}
	c, err := canonicalJSON(contractJSON)
	if err != nil {
		return "", err
	}
	return digest(domainContract, c), nil
}

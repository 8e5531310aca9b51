package attesttest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// SLSAProvenanceV1 is the SLSA v1 provenance predicate type.
const SLSAProvenanceV1 = "https://slsa.dev/provenance/v1"

// Statement is an in-toto v1 statement about one subject with the given
// digests (algorithm to hex), with a small SLSA-shaped predicate.
func Statement(predicateType, subject string, digest map[string]string) []byte {
	st := map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": subject, "digest": digest}},
		"predicateType": predicateType,
		"predicate": map[string]any{
			"buildDefinition": map[string]any{"buildType": "https://mcpreg.test/build/v1", "externalParameters": map[string]any{}},
			"runDetails":      map[string]any{"builder": map[string]any{"id": "https://mcpreg.test/builder"}},
		},
	}
	data, _ := json.Marshal(st) // maps of strings always encode
	return data
}

// SHA256 is the hex sha256 of data, for statement subjects.
func SHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

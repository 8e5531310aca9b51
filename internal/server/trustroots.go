package server

import (
	"fmt"
	"os"
	"strings"

	"github.com/mcpreg/mcpreg/attest"
)

// parseTrustedRoots reads --trusted-root NAME=PATH values.
func parseTrustedRoots(values []string) (map[string]string, error) {
	out := make(map[string]string, len(values))
	for _, v := range values {
		name, path, ok := strings.Cut(v, "=")
		name, path = strings.TrimSpace(name), strings.TrimSpace(path)
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("--trusted-root %q: want NAME=PATH to a sigstore trusted_root.json", v)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--trusted-root: %q given twice", name)
		}
		out[name] = path
	}
	return out, nil
}

// VerifierFrom builds the attestation verifier of `serve` and the admin
// commands: the trusted roots named by --trusted-root, plus the embedded
// public-good root under "public-good" unless a file replaces it.
func VerifierFrom(cfg Config) (*attest.Verifier, error) {
	paths, err := parseTrustedRoots(cfg.TrustedRoots)
	if err != nil {
		return nil, err
	}
	docs := map[string][]byte{attest.PublicGood: attest.PublicGoodTrustedRoot()}
	for name, path := range paths {
		doc, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--trusted-root %s: %w", name, err)
		}
		docs[name] = doc
	}
	roots, err := attest.NewTrustedRoots(docs)
	if err != nil {
		return nil, fmt.Errorf("--trusted-root: %w", err)
	}
	return attest.NewVerifier(roots, attest.Config{})
}

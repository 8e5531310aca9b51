package wiring

import (
	"fmt"
	"os"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/config"
)

// VerifierFrom builds the attestation verifier of `serve` and the admin
// commands: the trusted roots named by --trusted-root, plus the embedded
// public-good root under "public-good" unless a file replaces it.
func VerifierFrom(cfg config.Config) (*attest.Verifier, error) {
	paths, err := config.ParseTrustedRoots(cfg.TrustedRoots)
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

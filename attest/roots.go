package attest

import (
	"crypto/sha256"
	_ "embed" // the public-good trusted root
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"

	"github.com/sigstore/sigstore-go/pkg/root"
)

// PublicGood is the conventional name of the Sigstore public-good trust domain.
const PublicGood = "public-good"

//go:embed roots/public-good.json
var publicGoodJSON []byte

// PublicGoodTrustedRoot returns a snapshot of the Sigstore public-good
// trusted_root.json (see roots/README.md for its origin). Services should load
// a current copy from a file; the CLI uses this when given no --trusted-root.
func PublicGoodTrustedRoot() []byte { return slices.Clone(publicGoodJSON) }

var rootNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// TrustedRoots are the trust domains a Verifier knows, by name: each one a
// sigstore trusted_root.json (Fulcio CAs, Rekor logs, CT logs, TSAs). They
// are parsed once and read-only afterwards, so safe for concurrent use.
type TrustedRoots struct {
	roots map[string]*trustDomain
}

type trustDomain struct {
	name     string
	material *root.TrustedRoot
	digest   string // sha256 of the file as loaded
}

// NewTrustedRoots parses trusted_root.json documents keyed by name.
func NewTrustedRoots(docs map[string][]byte) (*TrustedRoots, error) {
	if len(docs) == 0 {
		return nil, fmt.Errorf("%w: no trusted roots given", ErrUnknownRoot)
	}
	r := &TrustedRoots{roots: make(map[string]*trustDomain, len(docs))}
	for name, doc := range docs {
		d, err := parseTrustDomain(name, doc)
		if err != nil {
			return nil, err
		}
		r.roots[name] = d
	}
	return r, nil
}

// LoadTrustedRoots reads trusted_root.json files keyed by name.
func LoadTrustedRoots(paths map[string]string) (*TrustedRoots, error) {
	docs := make(map[string][]byte, len(paths))
	for name, path := range paths {
		doc, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("trusted root %q: %w", name, err)
		}
		docs[name] = doc
	}
	return NewTrustedRoots(docs)
}

func parseTrustDomain(name string, doc []byte) (*trustDomain, error) {
	if !rootNamePattern.MatchString(name) {
		return nil, fmt.Errorf("trusted root name %q: want letters, digits, '.', '_' or '-' (at most 63)", name)
	}
	tr, err := root.NewTrustedRootFromJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("trusted root %q: %w", name, err)
	}
	sum := sha256.Sum256(doc)
	return &trustDomain{name: name, material: tr, digest: "sha256:" + hex.EncodeToString(sum[:])}, nil
}

// Names lists the loaded trust domains, sorted.
func (r *TrustedRoots) Names() []string {
	names := make([]string, 0, len(r.roots))
	for n := range r.roots {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Has reports whether a trust domain is loaded under name.
func (r *TrustedRoots) Has(name string) bool {
	_, ok := r.roots[name]
	return ok
}

func (r *TrustedRoots) get(name string) (*trustDomain, error) {
	d, ok := r.roots[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (loaded: %v)", ErrUnknownRoot, name, r.Names())
	}
	return d, nil
}

package attest

import (
	"crypto"
	"crypto/sha256"
	_ "crypto/sha512" // registers SHA-384 and SHA-512
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// Supported digest algorithms, named as in "sha256:<hex>".
const (
	SHA256 = "sha256"
	SHA384 = "sha384"
	SHA512 = "sha512"
)

var digestHashes = map[string]crypto.Hash{SHA256: crypto.SHA256, SHA384: crypto.SHA384, SHA512: crypto.SHA512}

// Digest is an artifact digest: an algorithm and lowercase hex.
type Digest struct {
	Algorithm string `json:"algorithm"`
	Hex       string `json:"hex"`
}

// String is the "sha256:<hex>" form.
func (d Digest) String() string { return d.Algorithm + ":" + d.Hex }

// ParseDigest reads "sha256:<hex>" (also sha384, sha512) or an npm-style
// integrity string "sha512-<base64>".
func ParseDigest(s string) (Digest, error) {
	if alg, hexPart, ok := strings.Cut(s, ":"); ok {
		return checked(Digest{Algorithm: strings.ToLower(alg), Hex: strings.ToLower(hexPart)})
	}
	if alg, b64, ok := strings.Cut(s, "-"); ok {
		return parseIntegrity(strings.ToLower(alg), b64)
	}
	return Digest{}, failf(ErrInvalidArtifact, "digest %q: want ALG:HEX (sha256, sha384, sha512) or an npm integrity string sha512-BASE64", s)
}

// DigestOf hashes data with algorithm alg (sha256, sha384 or sha512).
func DigestOf(data []byte, alg string) (Digest, error) {
	if err := checkAlgorithm(alg); err != nil {
		return Digest{}, err
	}
	w := digestHashes[alg].New()
	w.Write(data)
	return Digest{Algorithm: alg, Hex: hex.EncodeToString(w.Sum(nil))}, nil
}

func parseIntegrity(alg, b64 string) (Digest, error) {
	if err := checkAlgorithm(alg); err != nil {
		return Digest{}, err
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return Digest{}, failf(ErrInvalidArtifact, "digest %s-...: invalid base64: %v", alg, err)
	}
	return checked(Digest{Algorithm: alg, Hex: hex.EncodeToString(raw)})
}

func checked(d Digest) (Digest, error) {
	if err := d.check(); err != nil {
		return Digest{}, err
	}
	return d, nil
}

func checkAlgorithm(alg string) error {
	if _, ok := digestHashes[alg]; !ok {
		return failf(ErrInvalidArtifact, "digest algorithm %q is not supported (want sha256, sha384 or sha512)", alg)
	}
	return nil
}

// check validates the algorithm and the length and encoding of the hex.
func (d Digest) check() error {
	if err := checkAlgorithm(d.Algorithm); err != nil {
		return err
	}
	raw, err := hex.DecodeString(d.Hex)
	if err != nil {
		return failf(ErrInvalidArtifact, "digest %s: invalid hex: %v", d.Algorithm, err)
	}
	if want := digestHashes[d.Algorithm].Size(); len(raw) != want {
		return failf(ErrInvalidArtifact, "digest %s: %d bytes, want %d", d.Algorithm, len(raw), want)
	}
	return nil
}

func (d Digest) bytes() []byte {
	raw, _ := hex.DecodeString(d.Hex)
	return raw
}

// Artifact is what a bundle must be about: its bytes or its digest.
// Build one with ArtifactBytes or ArtifactDigest.
type Artifact struct {
	data   []byte
	digest Digest
	isData bool
	pkg    *Package // see For
}

// ArtifactBytes is an artifact given by its content.
func ArtifactBytes(data []byte) Artifact { return Artifact{data: data, isData: true} }

// ArtifactDigest is an artifact given by its digest.
func ArtifactDigest(d Digest) Artifact { return Artifact{digest: d} }

// Digest is the artifact's digest: as given, or the sha256 of its bytes.
func (a Artifact) Digest() Digest {
	if a.isData {
		sum := sha256.Sum256(a.data)
		return Digest{Algorithm: SHA256, Hex: hex.EncodeToString(sum[:])}
	}
	return a.digest
}

// digestIn returns the artifact's digest in algorithm alg, if known.
func (a Artifact) digestIn(alg string) ([]byte, bool) {
	h, ok := digestHashes[alg]
	if a.isData && ok {
		w := h.New()
		w.Write(a.data)
		return w.Sum(nil), true
	}
	if a.digest.Algorithm == alg {
		return a.digest.bytes(), true
	}
	return nil, false
}

func (a Artifact) check() error {
	if a.isData {
		return nil
	}
	if a.digest == (Digest{}) {
		return failf(ErrInvalidArtifact, "no artifact: give its bytes or its digest")
	}
	return a.digest.check()
}

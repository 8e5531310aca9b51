package auditchain

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/mod/sumdb/note"

	"github.com/mcpreg/mcpreg/signing"
)

const (
	// MaxNoteBytes is the largest checkpoint note Open reads.
	MaxNoteBytes = 16 << 10
	// MaxOriginBytes is the longest origin line.
	MaxOriginBytes = 200
	hashPrefix     = "sha256:"
	timePrefix     = "time "
)

// Checkpoint says: the audit log of Origin had Length events, and the
// hash of the last of them was Head, at Time.
type Checkpoint struct {
	Origin string
	Length int64
	// Head is the chain hash after event Length, "sha256:" and hex.
	Head string
	// Time is when the checkpoint was signed (UTC, whole seconds).
	Time time.Time
}

// CheckOrigin reports whether origin can name a log and its signing key: a
// non-empty UTF-8 string of at most MaxOriginBytes bytes without spaces,
// control characters or '+' (what signed notes allow in key names).
func CheckOrigin(origin string) error {
	switch {
	case origin == "":
		return errors.New("origin is empty")
	case len(origin) > MaxOriginBytes:
		return fmt.Errorf("origin is %d bytes, the limit is %d", len(origin), MaxOriginBytes)
	case !utf8.ValidString(origin):
		return errors.New("origin is not UTF-8")
	case strings.ContainsFunc(origin, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r == '+' }):
		return fmt.Errorf("origin %q contains a space, control character or '+'", origin)
	}
	return nil
}

// Text is the checkpoint's note text (what is signed).
func (c *Checkpoint) Text() (string, error) {
	if err := CheckOrigin(c.Origin); err != nil {
		return "", fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if c.Length < 1 {
		return "", fmt.Errorf("%w: length %d, want at least 1", ErrMalformed, c.Length)
	}
	raw, err := headBytes(c.Head)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s\n%d\n%s\n%s%s\n", c.Origin, c.Length, base64.StdEncoding.EncodeToString(raw),
		timePrefix, c.Time.UTC().Format(time.RFC3339)), nil
}

func headBytes(head string) ([]byte, error) {
	hexPart, ok := strings.CutPrefix(head, hashPrefix)
	raw, err := hex.DecodeString(hexPart)
	if !ok || err != nil || len(raw) != 32 || hex.EncodeToString(raw) != hexPart {
		return nil, fmt.Errorf("%w: head %q is not sha256: and 64 lower-case hex digits", ErrMalformed, head)
	}
	return raw, nil
}

// parseText reads a note text written by Text, strictly.
func parseText(text string) (*Checkpoint, error) {
	lines := strings.Split(text, "\n")
	if len(lines) != 5 || lines[4] != "" {
		return nil, fmt.Errorf("%w: want 4 lines (origin, length, head, time), got %d", ErrMalformed, len(lines)-1)
	}
	c := &Checkpoint{Origin: lines[0]}
	if err := CheckOrigin(c.Origin); err != nil {
		return nil, fmt.Errorf("%w: line 1: %w", ErrMalformed, err)
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n < 1 || strconv.FormatInt(n, 10) != lines[1] {
		return nil, fmt.Errorf("%w: line 2: length %q is not a positive decimal number", ErrMalformed, lines[1])
	}
	c.Length = n
	raw, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(raw) != 32 || base64.StdEncoding.EncodeToString(raw) != lines[2] {
		return nil, fmt.Errorf("%w: line 3: head %q is not the base64 of 32 bytes", ErrMalformed, lines[2])
	}
	c.Head = hashPrefix + hex.EncodeToString(raw)
	ts, ok := strings.CutPrefix(lines[3], timePrefix)
	t, err := time.Parse(time.RFC3339, ts)
	if !ok || err != nil || t.UTC().Format(time.RFC3339) != ts {
		return nil, fmt.Errorf("%w: line 4: %q is not \"time\" and an RFC 3339 UTC time", ErrMalformed, lines[3])
	}
	c.Time = t.UTC()
	return c, nil
}

// Sign returns the signed note of c, signed by key under the origin as key
// name. c.Time is truncated to whole seconds first.
func Sign(c *Checkpoint, key *signing.Key) ([]byte, error) {
	c.Time = c.Time.UTC().Truncate(time.Second)
	text, err := c.Text()
	if err != nil {
		return nil, err
	}
	if key == nil || len(key.Private) != ed25519.PrivateKeySize {
		return nil, errors.New("sign checkpoint: no Ed25519 private key")
	}
	return signText(c.Origin, text, key)
}

// noteSigner signs notes with an Ed25519 key; its name and key hash are
// those of the verifier note builds for the same key.
type noteSigner struct {
	note.Verifier
	priv ed25519.PrivateKey
}

func (s noteSigner) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.priv, msg), nil }

func verifierFor(name string, pub ed25519.PublicKey) (note.Verifier, error) {
	vkey, err := note.NewEd25519VerifierKey(name, pub)
	if err != nil {
		return nil, fmt.Errorf("checkpoint key: %w", err)
	}
	return note.NewVerifier(vkey)
}

// keyVerifiers finds, for any key name, the trusted Ed25519 key whose note
// key hash under that name matches.
type keyVerifiers struct {
	keys  []ed25519.PublicKey
	found map[note.Verifier]ed25519.PublicKey
}

func (k *keyVerifiers) Verifier(name string, hash uint32) (note.Verifier, error) {
	for _, pub := range k.keys {
		v, err := verifierFor(name, pub)
		if err == nil && v.KeyHash() == hash {
			k.found[v] = pub
			return v, nil
		}
	}
	return nil, &note.UnknownVerifierError{Name: name, KeyHash: hash}
}

// Open verifies a signed checkpoint note and returns the checkpoint and the
// id (signing.KeyID) of the key that signed it. The note must be at most
// MaxNoteBytes, in the format Text writes, and carry a valid signature by
// one of keys under its origin; a signature by a trusted key that does not
// verify is refused as well.
func Open(msg []byte, keys []ed25519.PublicKey) (*Checkpoint, string, error) {
	if len(msg) > MaxNoteBytes {
		return nil, "", fmt.Errorf("%w: note is %d bytes, the limit is %d", ErrMalformed, len(msg), MaxNoteBytes)
	}
	if len(keys) == 0 {
		return nil, "", fmt.Errorf("%w: no trusted keys given", ErrSignature)
	}
	kv := &keyVerifiers{keys: keys, found: map[note.Verifier]ed25519.PublicKey{}}
	n, err := note.Open(msg, kv)
	var unverified *note.UnverifiedNoteError
	var invalid *note.InvalidSignatureError
	switch {
	case errors.As(err, &unverified):
		return nil, "", fmt.Errorf("%w: not signed by any of the %d trusted key(s) (signed by %s)",
			ErrSignature, len(keys), describeSigs(unverified.Note.UnverifiedSigs))
	case errors.As(err, &invalid):
		return nil, "", fmt.Errorf("%w: the signature by trusted key %s+%08x does not verify", ErrSignature, invalid.Name, invalid.Hash)
	case err != nil:
		return nil, "", fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	c, err := parseText(n.Text)
	if err != nil {
		return nil, "", err
	}
	for _, s := range n.Sigs {
		if s.Name != c.Origin {
			continue
		}
		for v, pub := range kv.found {
			if v.Name() == s.Name && v.KeyHash() == s.Hash {
				return c, signing.KeyID(pub), nil
			}
		}
	}
	return nil, "", fmt.Errorf("%w: no trusted signature under the origin %q (signed by %s)", ErrSignature, c.Origin, describeSigs(n.Sigs))
}

func describeSigs(sigs []note.Signature) string {
	if len(sigs) == 0 {
		return "no key"
	}
	var parts []string
	for _, s := range sigs {
		parts = append(parts, fmt.Sprintf("%s+%08x", s.Name, s.Hash))
	}
	return strings.Join(parts, ", ")
}

// signText signs text (ending in a newline) as a note under name.
func signText(name, text string, key *signing.Key) ([]byte, error) {
	v, err := verifierFor(name, key.Public())
	if err != nil {
		return nil, err
	}
	return note.Sign(&note.Note{Text: text}, noteSigner{Verifier: v, priv: key.Private})
}

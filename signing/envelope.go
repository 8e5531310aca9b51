package signing

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

const (
	// PayloadType of discovery documents.
	PayloadType = "application/vnd.mcpreg.discovery+json"
	// MaxEnvelopeSize is the largest envelope Verify reads: 64 MiB.
	MaxEnvelopeSize = 64 << 20
)

// Sign returns the DSSE envelope JSON for payload, signed by k:
// {"payloadType","payload","signatures":[{"keyid","sig"}]} with the payload
// and the signature in standard base64.
func Sign(k *Key, payloadType string, payload []byte) ([]byte, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	if payloadType == "" {
		return nil, errors.New("sign: empty payload type")
	}
	es, err := dsse.NewEnvelopeSigner(signerFor(k))
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	env, err := es.SignPayload(context.Background(), payloadType, payload)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return json.Marshal(env)
}

// Verify checks envelope JSON against trusted public keys (by key id),
// requires its payload type to equal wantType, and returns the payload and
// the id of the key that verified it. It fails closed: the envelope must be
// at most MaxEnvelopeSize bytes of JSON with no unknown fields, in canonical
// base64, with at least one signature, and every signature must name a
// trusted key and verify. With several signatures, keyID is the first's.
func Verify(envelope []byte, wantType string, trusted map[string]ed25519.PublicKey) (payload []byte, keyID string, err error) {
	env, err := decodeEnvelope(envelope)
	if err != nil {
		return nil, "", err
	}
	if env.PayloadType != wantType {
		return nil, "", failf(ErrPayloadType, "payloadType is %q, want %q", env.PayloadType, wantType)
	}
	for i := range env.Signatures {
		if payload, err = verifySignature(env, i, trusted); err != nil {
			return nil, "", err
		}
	}
	return payload, env.Signatures[0].KeyID, nil
}

// decodeEnvelope parses envelope JSON strictly and checks that every field
// is present and in canonical base64.
func decodeEnvelope(data []byte) (*dsse.Envelope, error) {
	if len(data) > MaxEnvelopeSize {
		return nil, failf(ErrTooLarge, "%d bytes, limit %d", len(data), MaxEnvelopeSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var env dsse.Envelope
	if err := dec.Decode(&env); err != nil {
		return nil, failf(ErrMalformedEnvelope, "%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, failf(ErrMalformedEnvelope, "data after the JSON object")
	}
	return &env, checkEnvelope(&env)
}

func checkEnvelope(env *dsse.Envelope) error {
	if env.PayloadType == "" {
		return failf(ErrMalformedEnvelope, "payloadType is missing or empty")
	}
	if !canonicalBase64(env.Payload) {
		return failf(ErrMalformedEnvelope, "payload is not canonical base64")
	}
	if len(env.Signatures) == 0 {
		return failf(ErrMalformedEnvelope, "no signatures")
	}
	for i, s := range env.Signatures {
		if s.KeyID == "" {
			return failf(ErrMalformedEnvelope, "signatures[%d].keyid is missing or empty", i)
		}
		if !canonicalBase64(s.Sig) {
			return failf(ErrMalformedEnvelope, "signatures[%d].sig is not canonical base64", i)
		}
	}
	return nil
}

// canonicalBase64 reports whether s is standard or URL-safe base64 (DSSE
// verifiers accept both) spelled the one way each encodes: no missing
// padding, line breaks or non-zero trailing bits.
func canonicalBase64(s string) bool {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && enc.EncodeToString(b) == s {
			return true
		}
	}
	return false
}

// verifySignature checks signature i of env with the trusted key it names
// and returns the verified payload.
func verifySignature(env *dsse.Envelope, i int, trusted map[string]ed25519.PublicKey) ([]byte, error) {
	s := env.Signatures[i]
	pub, ok := trusted[s.KeyID]
	if !ok {
		return nil, failf(ErrUnknownKey, "signatures[%d].keyid %q is not a trusted key", i, s.KeyID)
	}
	if len(pub) != ed25519.PublicKeySize {
		return nil, failf(ErrInvalidKey, "trusted key %q is %d bytes, want %d", s.KeyID, len(pub), ed25519.PublicKeySize)
	}
	ev, err := dsse.NewEnvelopeVerifier(ed25519SignerVerifier{id: s.KeyID, pub: pub})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	one := &dsse.Envelope{PayloadType: env.PayloadType, Payload: env.Payload, Signatures: []dsse.Signature{s}}
	if _, payload, err := ev.VerifyAndDecode(context.Background(), one); err == nil {
		return payload, nil
	}
	return nil, failf(ErrSignature, "signatures[%d] does not verify with key %q", i, s.KeyID)
}

// ed25519SignerVerifier adapts an Ed25519 key pair to dsse.SignerVerifier.
// A verifier built from a public key alone has no private key and cannot sign.
type ed25519SignerVerifier struct {
	id   string
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey
}

var _ dsse.SignerVerifier = ed25519SignerVerifier{}

func signerFor(k *Key) ed25519SignerVerifier {
	return ed25519SignerVerifier{id: k.ID, priv: k.Private, pub: k.Public()}
}

func (sv ed25519SignerVerifier) Sign(_ context.Context, data []byte) ([]byte, error) {
	if len(sv.priv) != ed25519.PrivateKeySize {
		return nil, failf(ErrInvalidKey, "key %q has no Ed25519 private key", sv.id)
	}
	return ed25519.Sign(sv.priv, data), nil
}

func (sv ed25519SignerVerifier) Verify(_ context.Context, data, sig []byte) error {
	if len(sv.pub) != ed25519.PublicKeySize || !ed25519.Verify(sv.pub, data, sig) {
		return ErrSignature
	}
	return nil
}

func (sv ed25519SignerVerifier) KeyID() (string, error) { return sv.id, nil }

func (sv ed25519SignerVerifier) Public() crypto.PublicKey { return sv.pub }

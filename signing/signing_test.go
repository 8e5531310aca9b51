package signing_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/signing"
)

var doc = []byte(`{"registry":"https://registry.example","servers":"/v0.1/servers","expires":"2030-01-01T00:00:00Z"}`)

func newKey(t *testing.T) *signing.Key {
	t.Helper()
	k, err := signing.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func sign(t *testing.T, k *signing.Key, payload []byte) []byte {
	t.Helper()
	env, err := signing.Sign(k, signing.PayloadType, payload)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func trust(keys ...*signing.Key) map[string]ed25519.PublicKey {
	m := map[string]ed25519.PublicKey{}
	for _, k := range keys {
		m[k.ID] = k.Public()
	}
	return m
}

// envelope is the standard DSSE JSON, spelled out here rather than taken
// from the library, so the test pins the wire format.
type envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     string      `json:"payload"`
	Signatures  []signature `json:"signatures"`
}

type signature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

func decode(t *testing.T, data []byte) envelope {
	t.Helper()
	var e envelope
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func encode(t *testing.T, e envelope) []byte {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSignVerifyRoundTrip(t *testing.T) {
	k := newKey(t)
	payload, keyID, err := signing.Verify(sign(t, k, doc), signing.PayloadType, trust(newKey(t), k))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(payload, doc) || keyID != k.ID {
		t.Fatalf("got payload %q key %q, want %q key %q", payload, keyID, doc, k.ID)
	}
}

// TestEnvelopeJSON: the envelope has exactly the standard DSSE field names,
// standard base64, and survives a round trip through encoding/json.
func TestEnvelopeJSON(t *testing.T) {
	k := newKey(t)
	raw := sign(t, k, doc)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	if len(fields) != 3 || fields["payloadType"] == nil || fields["payload"] == nil || fields["signatures"] == nil {
		t.Fatalf("envelope fields: %s", raw)
	}
	e := decode(t, raw)
	if e.PayloadType != signing.PayloadType || e.Payload != base64.StdEncoding.EncodeToString(doc) {
		t.Fatalf("envelope: %+v", e)
	}
	if len(e.Signatures) != 1 || e.Signatures[0].KeyID != k.ID {
		t.Fatalf("signatures: %+v", e.Signatures)
	}
	if sig, err := base64.StdEncoding.DecodeString(e.Signatures[0].Sig); err != nil || len(sig) != ed25519.SignatureSize {
		t.Fatalf("sig: %v, %d bytes", err, len(sig))
	}
	if _, _, err := signing.Verify(encode(t, e), signing.PayloadType, trust(k)); err != nil {
		t.Fatalf("re-encoded envelope: %v", err)
	}
}

// TestVerifyURLSafeBase64: DSSE verifiers must accept URL-safe base64.
func TestVerifyURLSafeBase64(t *testing.T) {
	k := newKey(t)
	e := decode(t, sign(t, k, []byte("\xfb\xff\xfe")))
	p, _ := base64.StdEncoding.DecodeString(e.Payload)
	s, _ := base64.StdEncoding.DecodeString(e.Signatures[0].Sig)
	e.Payload, e.Signatures[0].Sig = base64.URLEncoding.EncodeToString(p), base64.URLEncoding.EncodeToString(s)
	if got, _, err := signing.Verify(encode(t, e), signing.PayloadType, trust(k)); err != nil || !bytes.Equal(got, p) {
		t.Fatalf("URL-safe base64: %v", err)
	}
}

// TestVerifyRejectsEveryChangedByte flips each byte of the payload and of
// the signature in turn (decode, flip, re-encode).
func TestVerifyRejectsEveryChangedByte(t *testing.T) {
	k := newKey(t)
	orig := decode(t, sign(t, k, doc))
	flip := func(b64 string, i int) string {
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		b[i] ^= 0x01
		return base64.StdEncoding.EncodeToString(b)
	}
	for i := range doc {
		e := decode(t, encode(t, orig))
		e.Payload = flip(e.Payload, i)
		if _, _, err := signing.Verify(encode(t, e), signing.PayloadType, trust(k)); !errors.Is(err, signing.ErrSignature) {
			t.Fatalf("payload byte %d flipped: %v", i, err)
		}
	}
	for i := range ed25519.SignatureSize {
		e := decode(t, encode(t, orig))
		e.Signatures[0].Sig = flip(e.Signatures[0].Sig, i)
		if _, _, err := signing.Verify(encode(t, e), signing.PayloadType, trust(k)); !errors.Is(err, signing.ErrSignature) {
			t.Fatalf("signature byte %d flipped: %v", i, err)
		}
	}
}

func TestVerifyRejects(t *testing.T) {
	k, other := newKey(t), newKey(t)
	good := decode(t, sign(t, k, doc))
	edit := func(f func(*envelope)) []byte {
		e := decode(t, encode(t, good))
		f(&e)
		return encode(t, e)
	}
	otherSig := decode(t, sign(t, other, doc)).Signatures[0]
	tests := []struct {
		name, want string
		envelope   []byte
		wantType   string
		sentinel   error
	}{
		{"wrong payload type", `payloadType is "application/vnd.mcpreg.discovery+json", want "application/json"`,
			sign(t, k, doc), "application/json", signing.ErrPayloadType},
		{"unknown key id", "signatures[0].keyid " + `"` + other.ID + `" is not a trusted key`,
			sign(t, other, doc), signing.PayloadType, signing.ErrUnknownKey},
		{"second signature by an unknown key", "signatures[1].keyid",
			edit(func(e *envelope) { e.Signatures = append(e.Signatures, otherSig) }), signing.PayloadType, signing.ErrUnknownKey},
		{"signature by another key under a trusted id", "signatures[0] does not verify",
			edit(func(e *envelope) { e.Signatures[0].Sig = otherSig.Sig }), signing.PayloadType, signing.ErrSignature},
		{"no signatures", "no signatures",
			edit(func(e *envelope) { e.Signatures = nil }), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"empty key id", "signatures[0].keyid is missing",
			edit(func(e *envelope) { e.Signatures[0].KeyID = "" }), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"bad payload base64", "payload is not canonical base64",
			edit(func(e *envelope) { e.Payload = "!!" + e.Payload }), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"unpadded payload base64", "payload is not canonical base64",
			edit(func(e *envelope) { e.Payload = strings.TrimRight(e.Payload, "=") }), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"bad signature base64", "signatures[0].sig is not canonical base64",
			edit(func(e *envelope) { e.Signatures[0].Sig = "%" }), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"missing payload type", "payloadType is missing",
			edit(func(e *envelope) { e.PayloadType = "" }), "", signing.ErrMalformedEnvelope},
		{"not JSON", "invalid character", []byte("not json"), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"JSON array", "cannot unmarshal array", []byte("[]"), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"JSON null", "payloadType is missing", []byte("null"), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"truncated", "unexpected EOF", sign(t, k, doc)[:40], signing.PayloadType, signing.ErrMalformedEnvelope},
		{"trailing data", "data after the JSON object",
			append(sign(t, k, doc), "{}"...), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"unknown field", `unknown field "extra"`,
			append([]byte(`{"extra":1,`), sign(t, k, doc)[1:]...), signing.PayloadType, signing.ErrMalformedEnvelope},
		{"oversized", "limit 67108864",
			make([]byte, signing.MaxEnvelopeSize+1), signing.PayloadType, signing.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload, keyID, err := signing.Verify(tt.envelope, tt.wantType, trust(k))
			if !errors.Is(err, tt.sentinel) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %v naming %q", err, tt.sentinel, tt.want)
			}
			if payload != nil || keyID != "" {
				t.Fatalf("returned payload %q and key %q with an error", payload, keyID)
			}
		})
	}
}

func TestVerifyMultipleSignatures(t *testing.T) {
	k, other := newKey(t), newKey(t)
	e := decode(t, sign(t, k, doc))
	e.Signatures = append(e.Signatures, decode(t, sign(t, other, doc)).Signatures[0])
	if _, id, err := signing.Verify(encode(t, e), signing.PayloadType, trust(k, other)); err != nil || id != k.ID {
		t.Fatalf("two trusted signatures: %v, key %q", err, id)
	}
}

func TestVerifyRefusesInvalidTrustedKey(t *testing.T) {
	k := newKey(t)
	trusted := map[string]ed25519.PublicKey{k.ID: k.Public()[:16]}
	if _, _, err := signing.Verify(sign(t, k, doc), signing.PayloadType, trusted); !errors.Is(err, signing.ErrInvalidKey) {
		t.Fatalf("short trusted key: %v", err)
	}
}

func TestSignRefusesInvalidKey(t *testing.T) {
	k := newKey(t)
	for name, bad := range map[string]*signing.Key{
		"nil":           nil,
		"no private":    {ID: k.ID},
		"short private": {ID: k.ID, Private: k.Private[:32]},
		"no id":         {Private: k.Private},
	} {
		if _, err := signing.Sign(bad, signing.PayloadType, doc); !errors.Is(err, signing.ErrInvalidKey) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := signing.Sign(k, "", doc); err == nil {
		t.Error("empty payload type accepted")
	}
}

// TestRotation: a document signed by the previous key verifies with
// Trusted while that key is listed, and not from its NotAfter on.
func TestRotation(t *testing.T) {
	oldKey, newKey := newKey(t), newKey(t)
	env := sign(t, oldKey, doc)
	notAfter := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	prev, err := signing.PublishedKeyFor(oldKey, &notAfter)
	if err != nil {
		t.Fatal(err)
	}
	ks := &signing.KeySet{Current: newKey, Previous: []signing.PublishedKey{prev}}
	if err := ks.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		now    time.Time
		listed bool
	}{
		{notAfter.Add(-time.Hour), true},
		{notAfter.Add(-time.Nanosecond), true},
		{notAfter, false},
		{notAfter.Add(time.Hour), false},
	} {
		_, id, err := signing.Verify(env, signing.PayloadType, ks.Trusted(tt.now))
		if tt.listed && (err != nil || id != oldKey.ID) {
			t.Errorf("at %v: %v, key %q", tt.now, err, id)
		}
		if !tt.listed && !errors.Is(err, signing.ErrUnknownKey) {
			t.Errorf("at %v (after NotAfter): %v", tt.now, err)
		}
		if _, id, err := signing.Verify(sign(t, newKey, doc), signing.PayloadType, ks.Trusted(tt.now)); err != nil || id != newKey.ID {
			t.Errorf("current key at %v: %v", tt.now, err)
		}
	}
}

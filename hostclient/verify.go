package hostclient

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/signing"
)

// MaxClockSkew is how far in the future a document's IssuedAt may lie
// (the registry's clock ahead of the host's) before it is refused.
const MaxClockSkew = time.Minute

// openVerified verifies one page's signature with the trusted keys and its
// validity period against the clock.
func (c *Client) openVerified(envelope []byte) (*discovery.Document, error) {
	payload, keyID, err := signing.Verify(envelope, signing.PayloadType, c.Keys)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSignature, err)
	}
	doc, err := decodeDocument(payload)
	if err != nil {
		return nil, err
	}
	if err := checkFresh(doc, c.now()); err != nil {
		return nil, fmt.Errorf("%w (signed by %s)", err, keyID)
	}
	return doc, nil
}

// checkFresh refuses a document outside its validity period.
func checkFresh(doc *discovery.Document, now time.Time) error {
	switch {
	case !doc.ExpiresAt.After(doc.IssuedAt):
		return fmt.Errorf("%w: expiresAt %s is not after issuedAt %s", ErrExpired, stamp(doc.ExpiresAt), stamp(doc.IssuedAt))
	case !now.Before(doc.ExpiresAt):
		return &expiredError{expiresAt: doc.ExpiresAt, now: now}
	case doc.IssuedAt.After(now.Add(MaxClockSkew)):
		return fmt.Errorf("%w: issuedAt %s is more than %s after now (%s); check the clocks",
			ErrNotYetValid, stamp(doc.IssuedAt), MaxClockSkew, stamp(now))
	}
	return nil
}

// expiredError is a document past its ExpiresAt; it matches ErrExpired.
type expiredError struct{ expiresAt, now time.Time }

func (e *expiredError) Error() string {
	return fmt.Sprintf("%s: it expired at %s; now is %s", ErrExpired, stamp(e.expiresAt), stamp(e.now))
}

func (e *expiredError) Unwrap() error { return ErrExpired }

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// openUnverified reads the payload of an envelope without checking its
// signature or validity.
func openUnverified(envelope []byte) (*discovery.Document, error) {
	var env struct {
		PayloadType string `json:"payloadType"`
		Payload     string `json:"payload"`
	}
	if err := json.Unmarshal(envelope, &env); err != nil {
		return nil, fmt.Errorf("%w: the answer is not a DSSE envelope: %w", ErrDocument, err)
	}
	if env.PayloadType != signing.PayloadType {
		return nil, fmt.Errorf("%w: payloadType %q, want %q", ErrDocument, env.PayloadType, signing.PayloadType)
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		if payload, err = base64.URLEncoding.DecodeString(env.Payload); err != nil {
			return nil, fmt.Errorf("%w: payload is not base64: %w", ErrDocument, err)
		}
	}
	return decodeDocument(payload)
}

// decodeDocument reads a payload as a discovery document of the known type.
func decodeDocument(payload []byte) (*discovery.Document, error) {
	var doc discovery.Document
	if err := json.Unmarshal(payload, &doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDocument, err)
	}
	if doc.Type != discovery.DocumentType {
		return nil, fmt.Errorf("%w: type %q, want %q", ErrDocument, doc.Type, discovery.DocumentType)
	}
	return &doc, nil
}

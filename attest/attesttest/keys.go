package attesttest

import (
	"errors"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
)

// KeySigner signs with a long-lived key pair (ECDSA P-256), as
// `cosign sign-blob --key` does, instead of a Fulcio certificate.
type KeySigner struct {
	keypair *sign.EphemeralKeypair
}

// NewKeySigner generates a key pair.
func NewKeySigner() (*KeySigner, error) {
	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		return nil, err
	}
	return &KeySigner{keypair: kp}, nil
}

// PublicKeyPEM is the public key as PKIX PEM, as a policy lists it.
func (k *KeySigner) PublicKeyPEM() (string, error) { return k.keypair.GetPublicKeyPem() }

// Sign makes a key-signed message-signature bundle for artifact. With tsa
// non-nil the bundle carries an RFC 3161 timestamp from tsa's TSA; without,
// it carries no time at all.
func (k *KeySigner) Sign(artifact []byte, tsa *Sigstore) ([]byte, error) {
	return k.bundle(&sign.PlainData{Data: artifact}, tsa)
}

// Attest makes a key-signed DSSE bundle of an in-toto statement.
func (k *KeySigner) Attest(statement []byte, tsa *Sigstore) ([]byte, error) {
	return k.bundle(&sign.DSSEData{Data: statement, PayloadType: "application/vnd.in-toto+json"}, tsa)
}

func (k *KeySigner) bundle(content sign.Content, tsa *Sigstore) ([]byte, error) {
	pb, err := sign.Bundle(content, k.keypair, sign.BundleOptions{})
	if err != nil {
		return nil, err
	}
	if tsa != nil {
		if err := tsa.timestamp(pb); err != nil {
			return nil, err
		}
	}
	return protojson.Marshal(pb)
}

// timestamp adds an RFC 3161 timestamp over the bundle's signature.
func (s *Sigstore) timestamp(pb *protobundle.Bundle) error {
	sig := pb.GetMessageSignature().GetSignature()
	if env := pb.GetDsseEnvelope(); env != nil && len(env.Signatures) > 0 {
		sig = env.Signatures[0].Sig
	}
	if len(sig) == 0 {
		return errors.New("bundle has no signature to timestamp")
	}
	ts, err := s.vs.TimestampResponse(sig)
	if err != nil {
		return err
	}
	pb.VerificationMaterial.TimestampVerificationData = timestampData([][]byte{ts})
	return nil
}

// TimestampRootJSON is a trusted_root.json with only the deployment's TSA:
// a trust domain for key-signed bundles that are timestamped but not logged.
func (s *Sigstore) TimestampRootJSON() ([]byte, error) {
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, nil, nil, s.vs.TimestampingAuthorities(), nil)
	if err != nil {
		return nil, err
	}
	return tr.MarshalJSON()
}

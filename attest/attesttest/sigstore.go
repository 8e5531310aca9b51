// Package attesttest makes sigstore bundles and trusted roots for tests of
// code that uses package attest: a private, in-process sigstore (sigstore-go's
// ca.VirtualSigstore) written out as the JSON the registry will receive.
package attesttest

import (
	"encoding/hex"
	"fmt"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/protobuf/encoding/protojson"
)

// BundleMediaType is the media type of the bundles made here (v0.3).
const BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Sigstore is a private sigstore deployment: Fulcio CA, Rekor log and TSA.
type Sigstore struct {
	vs *ca.VirtualSigstore
}

// New starts a fresh deployment with its own keys.
func New() (*Sigstore, error) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		return nil, err
	}
	return &Sigstore{vs: vs}, nil
}

// TrustedRootJSON is the deployment's trusted_root.json. It lists no CT
// log: the virtual Fulcio issues certificates without SCTs, as a private
// Fulcio without CT would.
func (s *Sigstore) TrustedRootJSON() ([]byte, error) {
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		s.vs.FulcioCertificateAuthorities(), nil, s.vs.TimestampingAuthorities(), rawLogIDs(s.vs.RekorLogs()))
	if err != nil {
		return nil, err
	}
	return tr.MarshalJSON()
}

// rawLogIDs fixes the virtual logs' IDs, which hold the hex key id as text;
// trusted_root.json carries the raw bytes.
func rawLogIDs(logs map[string]*root.TransparencyLog) map[string]*root.TransparencyLog {
	out := make(map[string]*root.TransparencyLog, len(logs))
	for id, tl := range logs {
		c := *tl
		if raw, err := hex.DecodeString(string(tl.ID)); err == nil {
			c.ID = raw
		}
		out[id] = &c
	}
	return out
}

// Sign makes a message-signature bundle for artifact, signed by a
// certificate for san (an email SAN) from issuer.
func (s *Sigstore) Sign(san, issuer string, artifact []byte) ([]byte, error) {
	e, err := s.vs.Sign(san, issuer, artifact)
	if err != nil {
		return nil, err
	}
	return s.bundleJSON(e)
}

// Attest makes a DSSE bundle of an in-toto statement (see Statement).
func (s *Sigstore) Attest(san, issuer string, statement []byte) ([]byte, error) {
	e, err := s.vs.Attest(san, issuer, statement)
	if err != nil {
		return nil, err
	}
	return s.bundleJSON(e)
}

func (s *Sigstore) bundleJSON(e verify.SignedEntity) ([]byte, error) {
	vm, err := s.material(e)
	if err != nil {
		return nil, err
	}
	pb := &protobundle.Bundle{MediaType: BundleMediaType, VerificationMaterial: vm}
	if err := setContent(pb, e); err != nil {
		return nil, err
	}
	return protojson.Marshal(pb)
}

func (s *Sigstore) material(e verify.SignedEntity) (*protobundle.VerificationMaterial, error) {
	vc, err := e.VerificationContent()
	if err != nil {
		return nil, err
	}
	if vc.Certificate() == nil {
		return nil, fmt.Errorf("entity has no certificate")
	}
	entries, err := s.tlogEntries(e)
	if err != nil {
		return nil, err
	}
	ts, err := e.Timestamps()
	if err != nil {
		return nil, err
	}
	return &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_Certificate{
			Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw},
		},
		TlogEntries:               entries,
		TimestampVerificationData: timestampData(ts),
	}, nil
}

func timestampData(ts [][]byte) *protobundle.TimestampVerificationData {
	out := &protobundle.TimestampVerificationData{}
	for _, t := range ts {
		out.Rfc3161Timestamps = append(out.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: t})
	}
	return out
}

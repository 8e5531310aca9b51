package attesttest

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/protobuf/proto"
)

// tlogEntries completes the virtual log's entries into what a v0.3 bundle
// carries: kind and version, the signed entry timestamp (the virtual entry
// keeps its own private), and an inclusion proof with a signed checkpoint.
func (s *Sigstore) tlogEntries(e verify.SignedEntity) ([]*protorekor.TransparencyLogEntry, error) {
	entries, err := e.TlogEntries()
	if err != nil {
		return nil, err
	}
	out := make([]*protorekor.TransparencyLogEntry, 0, len(entries))
	for _, entry := range entries {
		tle, err := s.completeEntry(entry)
		if err != nil {
			return nil, err
		}
		out = append(out, tle)
	}
	return out, nil
}

func (s *Sigstore) completeEntry(entry *tlog.Entry) (*protorekor.TransparencyLogEntry, error) {
	tle := proto.Clone(entry.TransparencyLogEntry()).(*protorekor.TransparencyLogEntry)
	var head struct{ Kind, APIVersion string }
	if err := json.Unmarshal(tle.CanonicalizedBody, &head); err != nil {
		return nil, fmt.Errorf("log entry body: %w", err)
	}
	tle.KindVersion = &protorekor.KindVersion{Kind: head.Kind, Version: head.APIVersion}
	set, err := s.vs.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	})
	if err != nil {
		return nil, err
	}
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	if tle.InclusionProof == nil {
		tle.InclusionProof, err = s.inclusionProof(tle.CanonicalizedBody)
	}
	return tle, err
}

// inclusionProof proves the entry as the only leaf of a one-entry tree.
func (s *Sigstore) inclusionProof(body []byte) (*protorekor.InclusionProof, error) {
	p, err := s.vs.GetInclusionProof(body)
	if err != nil {
		return nil, err
	}
	rootHash, err := hex.DecodeString(*p.RootHash)
	if err != nil {
		return nil, err
	}
	return &protorekor.InclusionProof{
		LogIndex:   *p.LogIndex,
		RootHash:   rootHash,
		TreeSize:   *p.TreeSize,
		Checkpoint: &protorekor.Checkpoint{Envelope: *p.Checkpoint},
	}, nil
}

func setContent(pb *protobundle.Bundle, e verify.SignedEntity) error {
	sc, err := e.SignatureContent()
	if err != nil {
		return err
	}
	if msg := sc.MessageSignatureContent(); msg != nil {
		pb.Content = &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{
				Algorithm: protocommon.HashAlgorithm(protocommon.HashAlgorithm_value[msg.DigestAlgorithm()]),
				Digest:    msg.Digest(),
			},
			Signature: msg.Signature(),
		}}
		return nil
	}
	env, err := dsseEnvelope(sc.EnvelopeContent())
	pb.Content = &protobundle.Bundle_DsseEnvelope{DsseEnvelope: env}
	return err
}

func dsseEnvelope(ec verify.EnvelopeContent) (*protodsse.Envelope, error) {
	raw := ec.RawEnvelope()
	payload, err := base64.StdEncoding.DecodeString(raw.Payload)
	if err != nil {
		return nil, err
	}
	env := &protodsse.Envelope{Payload: payload, PayloadType: raw.PayloadType}
	for _, sig := range raw.Signatures {
		sigBytes, err := base64.StdEncoding.DecodeString(sig.Sig)
		if err != nil {
			return nil, err
		}
		env.Signatures = append(env.Signatures, &protodsse.Signature{Sig: sigBytes, Keyid: sig.KeyID})
	}
	return env, nil
}

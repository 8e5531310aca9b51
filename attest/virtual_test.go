package attest_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/attest/attesttest"
)

var artifact = []byte("weather-mcp-1.2.0.tgz contents")

func TestVirtualMessageSignature(t *testing.T) {
	e := newEnv(t)
	bundle := e.sign(t, artifact)
	for name, a := range map[string]attest.Artifact{
		"bytes":  attest.ArtifactBytes(artifact),
		"digest": attest.ArtifactDigest(attest.ArtifactBytes(artifact).Digest()),
	} {
		t.Run(name, func(t *testing.T) {
			r, err := e.verifier.Verify(bundle, a, privatePolicy())
			if err != nil {
				t.Fatal(err)
			}
			checkReceipt(t, r, "messageSignature")
		})
	}
}

func TestVirtualDSSEProvenance(t *testing.T) {
	e := newEnv(t)
	st := attesttest.Statement(attesttest.SLSAProvenanceV1, "weather-mcp-1.2.0.tgz",
		map[string]string{"sha256": attesttest.SHA256(artifact)})
	p := privatePolicy()
	p.PredicateTypes = []string{attesttest.SLSAProvenanceV1}
	r, err := e.verifier.Verify(e.attest(t, st), attest.ArtifactBytes(artifact), p)
	if err != nil {
		t.Fatal(err)
	}
	checkReceipt(t, r, "dsse")
	if r.Statement == nil || r.Statement.PredicateType != attesttest.SLSAProvenanceV1 ||
		len(r.Statement.Subjects) != 1 || r.Statement.Subjects[0].Digest["sha256"] != attesttest.SHA256(artifact) {
		t.Errorf("statement = %+v", r.Statement)
	}
}

func checkReceipt(t *testing.T, r *attest.Receipt, content string) {
	t.Helper()
	if r.Content != content || r.BundleMediaType != attesttest.BundleMediaType {
		t.Errorf("content %q media type %q", r.Content, r.BundleMediaType)
	}
	if r.ArtifactDigest != "sha256:"+attesttest.SHA256(artifact) || r.ArtifactDigestAlgorithm != "sha256" {
		t.Errorf("artifact digest %q (%s)", r.ArtifactDigest, r.ArtifactDigestAlgorithm)
	}
	if r.Identity == nil || r.Identity.SAN != testSAN || r.Identity.Issuer != testIssuer || r.KeyFingerprint != "" {
		t.Errorf("identity %+v, key %q", r.Identity, r.KeyFingerprint)
	}
	if len(r.TlogEntries) != 1 || r.TlogEntries[0].IntegratedTime == nil || r.TlogEntries[0].LogID == "" {
		t.Errorf("tlog entries %+v", r.TlogEntries)
	}
	if !hasSource(r.Timestamps, "tsa") || !hasSource(r.Timestamps, "tlog") {
		t.Errorf("timestamps %+v, want tsa and tlog", r.Timestamps)
	}
	if r.Policy.TrustedRoot != privateRoot || r.Policy.Digest != r.Policy.Policy.Digest() || r.VerifiedAt.IsZero() {
		t.Errorf("policy check %+v at %v", r.Policy, r.VerifiedAt)
	}
	roundTrip(t, r)
}

func hasSource(ts []attest.ObservedTime, src string) bool {
	for _, o := range ts {
		if o.Source == src && !o.Time.IsZero() {
			return true
		}
	}
	return false
}

// roundTrip checks the receipt survives JSON, as the registry stores it.
func roundTrip(t *testing.T, r *attest.Receipt) {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back attest.Receipt
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(&back)
	if string(again) != string(data) {
		t.Errorf("receipt JSON changed on round trip:\n%s\n%s", data, again)
	}
	var sig map[string]any
	if err := json.Unmarshal(back.Sigstore, &sig); err != nil || sig["mediaType"] == nil {
		t.Errorf("embedded sigstore result %s: %v", back.Sigstore, err)
	}
}

// TestConcurrentVerify shares one Verifier between goroutines, as the
// service does (run with -race).
func TestConcurrentVerify(t *testing.T) {
	e := newEnv(t)
	bundles := [][]byte{e.sign(t, artifact), e.sign(t, artifact)}
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := e.verifier.Verify(bundles[i%2], attest.ArtifactBytes(artifact), privatePolicy())
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/attest/attesttest"
)

const (
	attestSAN    = "release@acme.example"
	attestIssuer = "https://issuer.acme.example"
)

// attestFiles is a private sigstore's trusted root, a signed artifact, its
// message-signature bundle and a DSSE provenance bundle, in a temp dir.
type attestFiles struct {
	dir, root, artifact, bundle, dsse string
	content                           []byte
}

func newAttestFiles(t *testing.T) attestFiles {
	t.Helper()
	ss, err := attesttest.New()
	if err != nil {
		t.Fatal(err)
	}
	f := attestFiles{dir: t.TempDir(), content: []byte("weather-mcp-1.2.0.tgz")}
	rootJSON, err := ss.TrustedRootJSON()
	must(t, err)
	signed, err := ss.Sign(attestSAN, attestIssuer, f.content)
	must(t, err)
	st := attesttest.Statement(attesttest.SLSAProvenanceV1, "weather.tgz", map[string]string{"sha256": attesttest.SHA256(f.content)})
	dsse, err := ss.Attest(attestSAN, attestIssuer, st)
	must(t, err)
	f.root = f.write(t, "trusted_root.json", rootJSON)
	f.artifact = f.write(t, "weather.tgz", f.content)
	f.bundle = f.write(t, "weather.sigstore.json", signed)
	f.dsse = f.write(t, "weather.provenance.sigstore.json", dsse)
	return f
}

func (f attestFiles) write(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(f.dir, name)
	must(t, os.WriteFile(path, data, 0o600))
	return path
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (f attestFiles) args(extra ...string) []string {
	return append([]string{"attest", "verify", "--trusted-root", f.root, "--issuer", attestIssuer}, extra...)
}

func TestAttestVerifyJSON(t *testing.T) {
	f := newAttestFiles(t)
	r := execute(t, offlineEnv, "", append(f.args("--bundle", f.bundle, "--artifact", f.artifact, "--identity", attestSAN), "-o", "json")...)
	if r.err != nil {
		t.Fatal(r.err)
	}
	var got attest.Receipt
	dec := json.NewDecoder(strings.NewReader(r.out))
	dec.DisallowUnknownFields()
	must(t, dec.Decode(&got))
	want := attest.ArtifactBytes(f.content).Digest().String()
	if got.Identity == nil || got.Identity.SAN != attestSAN || got.ArtifactDigest != want || got.Policy.TrustedRoot != "custom" ||
		len(got.TlogEntries) != 1 || got.Content != "messageSignature" {
		t.Errorf("receipt %s", r.out)
	}
}

func TestAttestVerifyTable(t *testing.T) {
	f := newAttestFiles(t)
	digest := attest.ArtifactBytes(f.content).Digest().String()
	r := execute(t, offlineEnv, "", f.args("--bundle", f.dsse, "--digest", digest,
		"--identity-regexp", `^release@acme\.example$`, "--predicate-type", attesttest.SLSAProvenanceV1)...)
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, line := range [][]string{
		{"Identity:", attestSAN}, {"Issuer:", attestIssuer}, {"Artifact:", digest},
		{"Predicate", "type:", attesttest.SLSAProvenanceV1},
	} {
		if !containsLine(r.out, line...) {
			t.Errorf("no line %q in\n%s", line, r.out)
		}
	}
	if !strings.HasPrefix(r.out, "Verified dsse bundle") || !strings.Contains(r.out, "Log index:") || !strings.Contains(r.out, "Observed (tsa):") {
		t.Errorf("output:\n%s", r.out)
	}
}

func TestAttestVerifyKey(t *testing.T) {
	f := newAttestFiles(t)
	tsa, err := attesttest.New()
	must(t, err)
	k, err := attesttest.NewKeySigner()
	must(t, err)
	pub, err := k.PublicKeyPEM()
	must(t, err)
	bundle, err := k.Sign(f.content, tsa)
	must(t, err)
	tsaRoot, err := tsa.TimestampRootJSON()
	must(t, err)
	r := execute(t, offlineEnv, "", "attest", "verify", "--trusted-root", f.write(t, "tsa.json", tsaRoot),
		"--bundle", f.write(t, "key.sigstore.json", bundle), "--artifact", f.artifact, "--key", f.write(t, "key.pub", []byte(pub)))
	if r.err != nil || !strings.Contains(r.out, "Key:") || !strings.Contains(r.out, "sha256:") {
		t.Fatalf("err %v, output:\n%s", r.err, r.out)
	}
}

func TestAttestVerifyFailures(t *testing.T) {
	f := newAttestFiles(t)
	tampered := f.write(t, "tampered.tgz", append(bytes.Clone(f.content), '!'))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"wrong identity", f.args("--bundle", f.bundle, "--artifact", f.artifact, "--identity", "ci@acme.example"),
			`certificate SAN "release@acme.example" does not match policy`},
		{"tampered artifact", f.args("--bundle", f.bundle, "--artifact", tampered, "--identity", attestSAN),
			"artifact digest does not match"},
		{"public-good root", []string{"attest", "verify", "--bundle", f.bundle, "--artifact", f.artifact, "--identity", attestSAN, "--issuer", attestIssuer},
			`trusted root "public-good"`},
		{"unanchored regexp", f.args("--bundle", f.bundle, "--artifact", f.artifact, "--identity-regexp", "release@"),
			"must be anchored"},
		{"md5 digest", f.args("--bundle", f.bundle, "--digest", "md5:d41d8cd98f00b204e9800998ecf8427e", "--identity", attestSAN),
			`--digest: invalid artifact: digest algorithm "md5" is not supported`},
		{"no issuer", []string{"attest", "verify", "--bundle", f.bundle, "--artifact", f.artifact, "--identity", attestSAN},
			"--issuer is required"},
		{"artifact and digest", f.args("--bundle", f.bundle, "--artifact", f.artifact, "--digest", "sha256:00", "--identity", attestSAN),
			"[artifact digest] were all set"},
		{"no signer", f.args("--bundle", f.bundle, "--artifact", f.artifact), "[identity identity-regexp key] is required"},
		{"missing bundle", f.args("--bundle", filepath.Join(f.dir, "nope.json"), "--artifact", f.artifact, "--identity", attestSAN),
			"--bundle: open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, offlineEnv, "", tt.args...)
			if r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", r.err, tt.want)
			}
			if r.out != "" {
				t.Errorf("printed on failure:\n%s", r.out)
			}
		})
	}
}

func TestAttestVerifyStdin(t *testing.T) {
	f := newAttestFiles(t)
	bundle, err := os.ReadFile(f.bundle)
	must(t, err)
	r := execute(t, offlineEnv, string(bundle), f.args("--bundle", "-", "--artifact", f.artifact, "--identity", attestSAN)...)
	if r.err != nil || !strings.Contains(r.out, "Verified messageSignature bundle") {
		t.Fatalf("err %v, output:\n%s", r.err, r.out)
	}
	r = execute(t, offlineEnv, string(bundle), f.args("--bundle", "-", "--artifact", "-", "--identity", attestSAN)...)
	if r.err == nil || !strings.Contains(r.err.Error(), "only one input") {
		t.Errorf("two inputs from stdin: %v", r.err)
	}
}

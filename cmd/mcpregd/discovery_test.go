package main

import (
	"bytes"
	"encoding/pem"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/buildinfo"
	"github.com/mcpreg/mcpreg/signing"
)

// TestDiscoveryKeygen: `mcpregd discovery keygen --out FILE` writes a 0600
// PKCS#8 key, prints its id and public key, and never overwrites a file.
func TestDiscoveryKeygen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "discovery.key")
	out, err := run(t, nil, "discovery", "keygen", "--out", path)
	if err != nil {
		t.Fatalf("keygen: %v\n%s", err, out)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v", err, fi.Mode())
	}
	k, err := signing.LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^key id: (ed25519:[0-9a-f]{32})$`).FindStringSubmatch(out)
	if m == nil || m[1] != k.ID {
		t.Fatalf("printed key id %v, want %s\n%s", m, k.ID, out)
	}
	block, _ := pem.Decode([]byte(out))
	if block == nil {
		t.Fatalf("no public key PEM printed:\n%s", out)
	}
	pub, err := signing.ParsePublicKey(pem.EncodeToMemory(block))
	if err != nil || !pub.Equal(k.Public()) {
		t.Fatalf("printed public key does not match the private key: %v\n%s", err, out)
	}
	before, _ := os.ReadFile(path)
	if out, err := run(t, nil, "discovery", "keygen", "--out", path); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second keygen to the same file: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("existing key file changed")
	}
	if _, err := run(t, nil, "discovery", "keygen"); err == nil || !strings.Contains(err.Error(), "out") {
		t.Fatalf("keygen without --out: %v", err)
	}
}

// TestDiscoveryPubkey: `mcpregd discovery pubkey` prints the public half of
// the key serve signs with, read from --discovery-key or
// MCPREG_DISCOVERY_KEY, or writes it to --out; a missing key says how it
// is made, a key others may read is refused.
func TestDiscoveryPubkey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "discovery.key")
	k, err := signing.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := signing.WriteKeyFile(path, k); err != nil {
		t.Fatal(err)
	}
	want, err := signing.MarshalPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(t, map[string]string{"MCPREG_DISCOVERY_KEY": path}, "discovery", "pubkey")
	if err != nil || !strings.Contains(out, string(want)) || !strings.Contains(out, k.ID) {
		t.Fatalf("pubkey from MCPREG_DISCOVERY_KEY: %v\n%s", err, out)
	}
	pubFile := filepath.Join(dir, "registry.pub")
	if out, err := run(t, nil, "discovery", "pubkey", "--discovery-key", path, "--out", pubFile); err != nil {
		t.Fatalf("pubkey --out: %v\n%s", err, out)
	}
	if got, err := os.ReadFile(pubFile); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("--out file: %v\n%s", err, got)
	}
	if _, err := run(t, nil, "discovery", "pubkey", "--discovery-key", filepath.Join(dir, "none.key")); err == nil ||
		!strings.Contains(err.Error(), "mcpregd serve creates it on first start") {
		t.Fatalf("missing key: %v", err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, nil, "discovery", "pubkey", "--discovery-key", path); err == nil || !strings.Contains(err.Error(), "chmod") {
		t.Fatalf("a key others may read: %v", err)
	}
}

// TestVersionFlag: --version prints the version /openapi.json carries.
func TestVersionFlag(t *testing.T) {
	out, err := run(t, nil, "--version")
	if err != nil || strings.TrimSpace(out) != "mcpregd version "+buildinfo.Version() {
		t.Fatalf("--version: %v %q", err, out)
	}
}

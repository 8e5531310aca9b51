package main

import (
	"bytes"
	"encoding/pem"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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

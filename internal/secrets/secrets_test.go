package secrets_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/secrets"
)

func TestSealOpen(t *testing.T) {
	k, _, err := secrets.Generate()
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := k.Seal([]byte("Bearer canary"), []byte("io.github.acme/weather\x00admin"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), "canary") {
		t.Fatal("sealed value holds the plaintext")
	}
	got, err := k.Open(sealed, []byte("io.github.acme/weather\x00admin"))
	if err != nil || string(got) != "Bearer canary" {
		t.Fatalf("open: %q %v", got, err)
	}
	other, _, _ := secrets.Generate()
	tampered := append([]byte{}, sealed...)
	tampered[len(tampered)-1] ^= 1
	for name, try := range map[string]func() ([]byte, error){
		"another server": func() ([]byte, error) { return k.Open(sealed, []byte("io.github.evil/weather\x00admin")) },
		"another key":    func() ([]byte, error) { return other.Open(sealed, []byte("io.github.acme/weather\x00admin")) },
		"altered":        func() ([]byte, error) { return k.Open(tampered, []byte("io.github.acme/weather\x00admin")) },
		"truncated":      func() ([]byte, error) { return k.Open(sealed[:5], []byte("io.github.acme/weather\x00admin")) },
	} {
		if _, err := try(); !errors.Is(err, secrets.ErrOpen) {
			t.Errorf("%s: %v, want ErrOpen", name, err)
		}
	}
}

func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.key")
	k, created, err := secrets.LoadOrCreate(path)
	if err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	again, created, err := secrets.LoadOrCreate(path)
	if err != nil || created || again.ID() != k.ID() {
		t.Fatalf("reload: %v %v %s %s", created, err, again.ID(), k.ID())
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := secrets.LoadFile(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable key: %v", err)
	}
	bad := filepath.Join(dir, "short.key")
	if err := os.WriteFile(bad, []byte("c2hvcnQ=\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := secrets.LoadFile(bad); !errors.Is(err, secrets.ErrKey) || !strings.Contains(err.Error(), "want 32 bytes") {
		t.Fatalf("short key: %v", err)
	}
}

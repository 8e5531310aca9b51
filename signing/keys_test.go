package signing_test

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/signing"
)

// TestKeyID checks the documented derivation against a DER encoding built
// by hand (the fixed RFC 8410 prefix, then the key) and a pinned value.
func TestKeyID(t *testing.T) {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	der := append([]byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}, pub...)
	sum := sha256.Sum256(der)
	want := "ed25519:" + hex.EncodeToString(sum[:16])
	if got := signing.KeyID(pub); got != want || got != "ed25519:a050837d85070582ccf7394b0988847c" {
		t.Fatalf("KeyID = %q, want %q", got, want)
	}
	if !regexp.MustCompile(`^ed25519:[0-9a-f]{32}$`).MatchString(newKey(t).ID) {
		t.Fatalf("generated key id %q", newKey(t).ID)
	}
}

func TestKeyPEMRoundTrip(t *testing.T) {
	k := newKey(t)
	priv, err := signing.MarshalPrivateKey(k)
	if err != nil || !strings.HasPrefix(string(priv), "-----BEGIN PRIVATE KEY-----\n") {
		t.Fatalf("MarshalPrivateKey: %v\n%s", err, priv)
	}
	back, err := signing.ParsePrivateKey(priv)
	if err != nil || back.ID != k.ID || !back.Private.Equal(k.Private) {
		t.Fatalf("ParsePrivateKey: %v, %+v", err, back)
	}
	pub, err := signing.MarshalPublicKey(k.Public())
	if err != nil || !strings.HasPrefix(string(pub), "-----BEGIN PUBLIC KEY-----\n") {
		t.Fatalf("MarshalPublicKey: %v\n%s", err, pub)
	}
	if got, err := signing.ParsePublicKey(pub); err != nil || !got.Equal(k.Public()) {
		t.Fatalf("ParsePublicKey: %v", err)
	}
}

// TestParseAnyPublicKey: a public key file and a private key file give
// the same public key; anything else is ErrInvalidKey.
func TestParseAnyPublicKey(t *testing.T) {
	k := newKey(t)
	priv, err := signing.MarshalPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := signing.MarshalPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"public": pub, "private": priv} {
		if got, err := signing.ParseAnyPublicKey(data); err != nil || !got.Equal(k.Public()) {
			t.Errorf("%s key file: %v", name, err)
		}
	}
	for name, data := range map[string][]byte{"empty": nil, "text": []byte("key"), "certificate": pemOf("CERTIFICATE", []byte{1, 2})} {
		if _, err := signing.ParseAnyPublicKey(data); !errors.Is(err, signing.ErrInvalidKey) ||
			!strings.Contains(err.Error(), "not an Ed25519 public or private key in PEM") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func pemOf(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func TestParsePrivateKeyRefuses(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	xKey, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaPKCS8, err := x509.MarshalPKCS8PrivateKey(rsaKey)
	ecPKCS8, err2 := x509.MarshalPKCS8PrivateKey(ecKey)
	xPKCS8, err3 := x509.MarshalPKCS8PrivateKey(xKey)
	ecSEC1, err4 := x509.MarshalECPrivateKey(ecKey)
	if err := errors.Join(err, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
	good, _ := signing.MarshalPrivateKey(newKey(t))
	pub, _ := signing.MarshalPublicKey(newKey(t).Public())
	withHeader := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: []byte{1}})
	tests := map[string]struct {
		pem  []byte
		want string
	}{
		"RSA PKCS#8":        {pemOf("PRIVATE KEY", rsaPKCS8), "private key is RSA, want Ed25519"},
		"ECDSA PKCS#8":      {pemOf("PRIVATE KEY", ecPKCS8), "private key is ECDSA, want Ed25519"},
		"X25519 PKCS#8":     {pemOf("PRIVATE KEY", xPKCS8), "want Ed25519"},
		"RSA PKCS#1":        {pemOf("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rsaKey)), `PEM block is "RSA PRIVATE KEY", want "PRIVATE KEY"`},
		"ECDSA SEC 1":       {pemOf("EC PRIVATE KEY", ecSEC1), `PEM block is "EC PRIVATE KEY"`},
		"public key":        {pub, `PEM block is "PUBLIC KEY"`},
		"garbage":           {[]byte("this is not a key"), "not PEM"},
		"empty":             {nil, "not PEM"},
		"garbage DER":       {pemOf("PRIVATE KEY", []byte("garbage")), "not a PKCS#8 private key"},
		"text before":       {append([]byte("key:\n"), good...), "not PEM"},
		"second block":      {append(append([]byte{}, good...), good...), "data after"},
		"encrypted headers": {withHeader, "headers"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			k, err := signing.ParsePrivateKey(tt.pem)
			if !errors.Is(err, signing.ErrInvalidKey) || !strings.Contains(err.Error(), tt.want) || k != nil {
				t.Fatalf("err = %v, want ErrInvalidKey naming %q", err, tt.want)
			}
		})
	}
}

func TestParsePublicKeyRefuses(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaDER, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	ecDER, err2 := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	if err := errors.Join(err, err2); err != nil {
		t.Fatal(err)
	}
	priv, _ := signing.MarshalPrivateKey(newKey(t))
	tests := map[string]struct {
		pem  []byte
		want string
	}{
		"RSA":         {pemOf("PUBLIC KEY", rsaDER), "public key is RSA, want Ed25519"},
		"ECDSA":       {pemOf("PUBLIC KEY", ecDER), "public key is ECDSA, want Ed25519"},
		"RSA PKCS#1":  {pemOf("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&rsaKey.PublicKey)), `PEM block is "RSA PUBLIC KEY"`},
		"private key": {priv, `PEM block is "PRIVATE KEY", want "PUBLIC KEY"`},
		"garbage":     {[]byte("-----BEGIN nonsense"), "not PEM"},
		"garbage DER": {pemOf("PUBLIC KEY", []byte{0x30, 0x01}), "not a PKIX public key"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			pub, err := signing.ParsePublicKey(tt.pem)
			if !errors.Is(err, signing.ErrInvalidKey) || !strings.Contains(err.Error(), tt.want) || pub != nil {
				t.Fatalf("err = %v, want ErrInvalidKey naming %q", err, tt.want)
			}
		})
	}
	if _, err := signing.MarshalPublicKey(make([]byte, 31)); !errors.Is(err, signing.ErrInvalidKey) {
		t.Fatalf("MarshalPublicKey of 31 bytes: %v", err)
	}
}

func TestKeyFiles(t *testing.T) {
	k := newKey(t)
	path := filepath.Join(t.TempDir(), "discovery.key")
	if err := signing.WriteKeyFile(path, k); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("written key file: %v, mode %v", err, fi.Mode())
	}
	if got, err := signing.LoadKeyFile(path); err != nil || got.ID != k.ID || !got.Private.Equal(k.Private) {
		t.Fatalf("LoadKeyFile 0600: %v", err)
	}
	if err := signing.WriteKeyFile(path, newKey(t)); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("overwrite: %v", err)
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := signing.LoadKeyFile(path)
		if !errors.Is(err, signing.ErrKeyFileMode) || !strings.Contains(err.Error(), "chmod 600") {
			t.Fatalf("LoadKeyFile %04o: %v", mode, err)
		}
	}
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if _, err := signing.LoadKeyFile(path); err != nil {
		t.Fatalf("LoadKeyFile 0400: %v", err)
	}
	if _, err := signing.LoadKeyFile(filepath.Dir(path)); !errors.Is(err, signing.ErrInvalidKey) {
		t.Fatalf("LoadKeyFile of a directory: %v", err)
	}
	if _, err := signing.LoadKeyFile(path + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("LoadKeyFile of a missing file: %v", err)
	}
}

// Package secrets seals the credentials an admin gives the scanner with
// the registry's secrets key: AES-256-GCM with a random nonce per value
// and caller-chosen associated data (the server name and the label), so a
// sealed value moved to another server or label does not open. The key is
// separate from the discovery signing key, whose rotation would otherwise
// lose every stored credential.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// KeySize is the length of a secrets key in bytes.
const KeySize = 32

// ErrKey is matched by errors about the key file.
var ErrKey = errors.New("secrets key")

// ErrOpen is matched when a sealed value does not open: another key, or
// the value was moved or altered.
var ErrOpen = errors.New("sealed value does not open")

// Key seals and opens values.
type Key struct {
	aead cipher.AEAD
	id   string
}

// ID names the key without revealing it: the first 16 hex digits of
// SHA-256 over it.
func (k *Key) ID() string { return k.id }

// New returns the key of raw, which must be KeySize bytes.
func New(raw []byte) (*Key, error) {
	if len(raw) != KeySize {
		return nil, fmt.Errorf("%w: want %d bytes, got %d", ErrKey, KeySize, len(raw))
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	return &Key{aead: aead, id: hex.EncodeToString(sum[:8])}, nil
}

// Seal encrypts plaintext bound to ad; the result is nonce || ciphertext.
func (k *Key) Seal(plaintext, ad []byte) ([]byte, error) {
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plaintext)+k.aead.Overhead())
	if _, err := io.ReadFull(rand.Reader, nonce); err != nil {
		return nil, err
	}
	return k.aead.Seal(nonce, nonce, plaintext, ad), nil
}

// Open decrypts what Seal returned for the same ad.
func (k *Key) Open(sealed, ad []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n+k.aead.Overhead() {
		return nil, ErrOpen
	}
	out, err := k.aead.Open(nil, sealed[:n], sealed[n:], ad)
	if err != nil {
		return nil, ErrOpen
	}
	return out, nil
}

// maxFileSize bounds a key file: base64 of 32 bytes and a newline.
const maxFileSize = 256

// LoadFile reads a key file: the base64 (standard alphabet) of KeySize
// random bytes, mode 0600 or stricter.
func LoadFile(path string) (*Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w file: %w", ErrKey, err)
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w file: %w", ErrKey, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w file %s: not a regular file", ErrKey, path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w file %s: mode %v lets others read it: chmod 600 %s", ErrKey, path, fi.Mode().Perm(), path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w file %s: %w", ErrKey, path, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%w file %s: larger than %d bytes", ErrKey, path, maxFileSize)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
	if err != nil {
		return nil, fmt.Errorf("%w file %s: not base64: %w", ErrKey, path, err)
	}
	return New(raw)
}

// Generate returns a new random key and its file contents.
func Generate() (*Key, []byte, error) {
	raw := make([]byte, KeySize)
	if _, err := io.ReadFull(rand.Reader, raw); err != nil {
		return nil, nil, err
	}
	k, err := New(raw)
	if err != nil {
		return nil, nil, err
	}
	return k, []byte(base64.StdEncoding.EncodeToString(raw) + "\n"), nil
}

// LoadOrCreate loads the key file at path, writing a new key there (mode
// 0600, never overwriting) when it does not exist; created reports that.
func LoadOrCreate(path string) (k *Key, created bool, err error) {
	k, err = LoadFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, false, err
	}
	k, data, err := Generate()
	if err != nil {
		return nil, false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another replica created it first
		k, err = LoadFile(path)
		return k, false, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("%w file: %w", ErrKey, err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return nil, false, fmt.Errorf("%w file %s: %w", ErrKey, path, err)
	}
	if err := f.Close(); err != nil {
		return nil, false, fmt.Errorf("%w file %s: %w", ErrKey, path, err)
	}
	return k, true, nil
}

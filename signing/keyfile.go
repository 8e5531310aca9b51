package signing

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// maxKeyFileSize bounds what LoadKeyFile reads; a PEM Ed25519 key is ~120 bytes.
const maxKeyFileSize = 64 << 10

// LoadKeyFile reads a private key file written by WriteKeyFile (PKCS#8 PEM).
// It refuses a file that is not regular or is readable by group or others
// (mode & 0o077 != 0), saying to chmod 600 it.
func LoadKeyFile(path string) (*Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	defer func() { _ = f.Close() }()
	if err := checkKeyFile(f, path); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	if len(data) > maxKeyFileSize {
		return nil, failf(ErrInvalidKey, "key file %s is larger than %d bytes", path, maxKeyFileSize)
	}
	k, err := ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return k, nil
}

// checkKeyFile checks the open file itself, so the mode checked is the mode
// of the file read.
func checkKeyFile(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return failf(ErrInvalidKey, "key file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return failf(ErrKeyFileMode, "key file %s has mode %04o and is readable by group or others; run chmod 600 %s", path, perm, path)
	}
	return nil
}

// WriteKeyFile writes k as PKCS#8 PEM to a new file with mode 0600. It
// refuses to overwrite an existing file, and removes what it created if the
// write fails.
func WriteKeyFile(path string, k *Key) (err error) {
	data, err := MarshalPrivateKey(k)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("key file %s already exists; not overwriting it", path)
	}
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("key file %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("key file %s: %w", path, err)
	}
	return nil
}

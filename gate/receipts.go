package gate

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Outcome is how a call ended, as its receipt records it.
type Outcome string

// Outcomes of a call.
const (
	// OutcomeCommitted: the server answered with a result whose isError is
	// false.
	OutcomeCommitted Outcome = "committed"
	// OutcomeFailed: a JSON-RPC error, a result with isError true, or a
	// failure before the call was sent.
	OutcomeFailed Outcome = "failed"
	// OutcomeUncertain: sent, and no answer came (the server exited, the
	// host cancelled, a timeout): it may or may not have taken effect.
	OutcomeUncertain Outcome = "uncertain"
	// OutcomeRejected: the gate refused the call; Reason says why.
	OutcomeRejected Outcome = "rejected"
)

// Receipt records one tools/call through the gate.
type Receipt struct {
	ID          string `json:"receiptId"`
	Server      string `json:"server"`
	Version     string `json:"version"`
	PinRevision int    `json:"pinRevision"`
	Tool        string `json:"tool"`
	// ToolHash is the pinned hash of the tool called ("" when it is not an
	// approved tool).
	ToolHash string `json:"toolHash,omitempty"`
	// ArgumentsDigest is "sha256:" of the JCS form of the arguments ({}
	// when there are none).
	ArgumentsDigest string    `json:"argumentsDigest"`
	IdempotencyKey  string    `json:"idempotencyKey,omitempty"`
	StartedAt       time.Time `json:"startedAt"`
	EndedAt         time.Time `json:"endedAt"`
	Outcome         Outcome   `json:"outcome"`
	// Reason says why a call was rejected, failed or is uncertain.
	Reason string `json:"reason,omitempty"`
	// ResultDigest is "sha256:" of the result (or error) as received.
	ResultDigest string   `json:"resultDigest,omitempty"`
	Findings     []string `json:"findings,omitempty"`
}

// ReceiptSink takes the receipts of finished calls.
type ReceiptSink interface {
	Write(Receipt) error
}

// newReceiptID is a random receipt id ("rcpt_" and 24 hex digits).
func newReceiptID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "rcpt_" + hex.EncodeToString(b[:])
}

// argumentsDigest is "sha256:" of the JCS form of raw ({} when absent).
func argumentsDigest(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	v := jsontext.Value(append([]byte(nil), raw...))
	if err := v.Canonicalize(); err != nil {
		return "", fmt.Errorf("arguments cannot be canonicalized: %w", err)
	}
	return digest(v), nil
}

// digest is "sha256:" and the hex SHA-256 of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// DefaultReceiptsPath is $XDG_STATE_HOME/mcpreg/receipts.jsonl, or
// ~/.local/state/mcpreg/receipts.jsonl when XDG_STATE_HOME is not set.
func DefaultReceiptsPath(lookupEnv func(string) (string, bool)) (string, error) {
	if dir, ok := lookupEnv("XDG_STATE_HOME"); ok && filepath.IsAbs(dir) {
		return filepath.Join(dir, "mcpreg", "receipts.jsonl"), nil
	}
	home, ok := lookupEnv("HOME")
	if !ok || !filepath.IsAbs(home) {
		return "", errors.New("neither XDG_STATE_HOME nor HOME is an absolute directory: give --receipts")
	}
	return filepath.Join(home, ".local", "state", "mcpreg", "receipts.jsonl"), nil
}

// ReceiptFile appends receipts as JSON lines to a file, and rotates it
// when it would grow past MaxBytes: the file becomes FILE.1, FILE.1
// becomes FILE.2, and so on up to Keep old files.
type ReceiptFile struct {
	Path     string
	MaxBytes int64
	Keep     int

	mu sync.Mutex
}

// Receipt file defaults.
const (
	DefaultReceiptMaxBytes = 10 << 20
	DefaultReceiptKeep     = 5
)

// Write appends r, rotating first when the file would grow past MaxBytes.
func (f *ReceiptFile) Write(r Receipt) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("receipts: %w", err)
	}
	// An empty file is not rotated: that would only drop the oldest.
	if st, err := os.Stat(f.Path); err == nil && st.Size() > 0 && st.Size()+int64(len(line)) > f.maxBytes() {
		if err := f.rotate(); err != nil {
			return err
		}
	}
	out, err := os.OpenFile(f.Path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("receipts: %w", err)
	}
	if _, err := out.Write(line); err != nil {
		_ = out.Close()
		return fmt.Errorf("receipts: %w", err)
	}
	return out.Close()
}

func (f *ReceiptFile) maxBytes() int64 {
	if f.MaxBytes <= 0 {
		return DefaultReceiptMaxBytes
	}
	return f.MaxBytes
}

// rotate shifts FILE.(n-1) to FILE.n down to FILE to FILE.1, dropping
// the oldest.
func (f *ReceiptFile) rotate() error {
	keep := f.Keep
	if keep <= 0 {
		keep = DefaultReceiptKeep
	}
	for i := keep - 1; i >= 0; i-- {
		from := f.Path
		if i > 0 {
			from += "." + strconv.Itoa(i)
		}
		if err := os.Rename(from, f.Path+"."+strconv.Itoa(i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("receipts: rotating: %w", err)
		}
	}
	return nil
}

// ReadReceiptFile reads the receipts of a receipts file (one JSON object a
// line); a missing file has none.
func ReadReceiptFile(path string) ([]Receipt, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("receipts: %w", err)
	}
	var out []Receipt
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r Receipt
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("receipts: %s line %d: %w", path, i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

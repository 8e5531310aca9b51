package auditchain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Genesis is the prev_hash of the first event.
const Genesis = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrBroken: an event does not link to the one before it, or its stored
	// hash is not the hash of its contents.
	ErrBroken = errors.New("audit chain broken")
	// ErrRewritten: the chain replayed up to a checkpoint's length does not
	// end in the checkpoint's head hash.
	ErrRewritten = errors.New("audit log rewritten before the checkpoint")
	// ErrTruncated: the chain is shorter than a checkpoint says it was.
	ErrTruncated = errors.New("audit log shorter than the checkpoint")
	// ErrMalformed: a checkpoint note is not in the checkpoint format.
	ErrMalformed = errors.New("malformed checkpoint")
	// ErrSignature: a checkpoint note carries no valid signature by a
	// trusted key for its origin.
	ErrSignature = errors.New("checkpoint signature")
)

// Entry is the hashed form of an event: a fixed field order, times in UTC
// at microsecond precision (what both databases store).
type Entry struct {
	Seq        int64  `json:"seq"`
	OccurredAt string `json:"occurredAt"`
	Actor      string `json:"actor"`
	Action     string `json:"action"`
	Subject    string `json:"subject"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Reason     string `json:"reason"`
	RequestID  string `json:"requestId"`
	Details    string `json:"details"`
}

// FormatTime is how an event's time enters its hash.
func FormatTime(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format("2006-01-02T15:04:05.000000Z")
}

// Hash links an event to its predecessor's hash prev: "sha256:" and the hex
// of SHA-256("mcpreg-audit-v1\n" prev "\n" JSON(e)).
func Hash(prev string, e Entry) string {
	body, err := json.Marshal(e)
	if err != nil {
		panic(fmt.Sprintf("auditchain: marshal entry: %v", err)) // plain strings and ints cannot fail
	}
	h := sha256.New()
	h.Write([]byte("mcpreg-audit-v1\n" + prev + "\n"))
	h.Write(body)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// BreakError names the first event whose link does not hold.
type BreakError struct {
	Seq     int64
	Problem string
}

func (e *BreakError) Error() string {
	return fmt.Sprintf("%v at event %d: %s", ErrBroken, e.Seq, e.Problem)
}

// Unwrap makes errors.Is(err, ErrBroken) hold.
func (e *BreakError) Unwrap() error { return ErrBroken }

// Chain replays events in sequence order. The zero value is not usable;
// make one with NewChain.
type Chain struct {
	n    int64
	head string
	cp   *Checkpoint
}

// NewChain starts a replay at the genesis hash. With a checkpoint, Add
// fails as soon as the chain reaches the checkpoint's length with another
// head hash, and Close fails when it never reaches it.
func NewChain(cp *Checkpoint) *Chain { return &Chain{head: Genesis, cp: cp} }

// ResumeChain continues a replay after event length, whose hash was head
// (a verified checkpoint's): the next event Add takes is length+1.
func ResumeChain(length int64, head string) *Chain { return &Chain{n: length, head: head} }

// Len is the number of events replayed.
func (c *Chain) Len() int64 { return c.n }

// Head is the hash of the last event replayed (Genesis before the first).
func (c *Chain) Head() string { return c.head }

// Add replays one event with its stored prev_hash and hash: its sequence
// must follow the previous one, its prev_hash be the running head and its
// hash the hash of its contents. It returns a *BreakError naming the event,
// or an error wrapping ErrRewritten at the checkpoint's length.
func (c *Chain) Add(e Entry, prevHash, hash string) error {
	switch {
	case e.Seq != c.n+1:
		return &BreakError{Seq: e.Seq, Problem: fmt.Sprintf("sequence gap: event %d follows %d", e.Seq, c.n)}
	case prevHash != c.head:
		return &BreakError{Seq: e.Seq, Problem: fmt.Sprintf("prev_hash %s does not match the hash %s of event %d", prevHash, c.head, c.n)}
	case Hash(c.head, e) != hash:
		return &BreakError{Seq: e.Seq, Problem: "stored hash does not match the event's contents (the row was altered)"}
	}
	c.n, c.head = e.Seq, hash
	if c.cp != nil && c.n == c.cp.Length && c.head != c.cp.Head {
		return fmt.Errorf("%w: after event %d the chain's hash is %s, but the checkpoint signed at %s says %s: "+
			"an event at or before %d was changed and the later hashes recomputed",
			ErrRewritten, c.n, c.head, c.cp.Time.Format(time.RFC3339), c.cp.Head, c.n)
	}
	return nil
}

// Close ends the replay: with a checkpoint, the chain must have reached
// its length (Add checked the hash there).
func (c *Chain) Close() error {
	if c.cp != nil && c.n < c.cp.Length {
		return fmt.Errorf("%w: the log has %d events, but the checkpoint signed at %s covers %d: events were removed",
			ErrTruncated, c.n, c.cp.Time.Format(time.RFC3339), c.cp.Length)
	}
	return nil
}

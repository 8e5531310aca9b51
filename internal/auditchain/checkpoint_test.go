package auditchain_test

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/signing"
)

func newKey(t testing.TB) *signing.Key {
	t.Helper()
	k, err := signing.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// chainOf builds n consistent events and returns them with their hashes.
func chainOf(n int) (entries []auditchain.Entry, prev, hashes []string) {
	head := auditchain.Genesis
	for i := range n {
		e := auditchain.Entry{Seq: int64(i + 1), OccurredAt: auditchain.FormatTime(time.Unix(int64(1000+i), 0)),
			Actor: "alice", Action: "version.approve", Subject: fmt.Sprintf("io.github.acme/x@1.0.%d", i)}
		h := auditchain.Hash(head, e)
		entries, prev, hashes = append(entries, e), append(prev, head), append(hashes, h)
		head = h
	}
	return entries, prev, hashes
}

func signed(t *testing.T, key *signing.Key, c auditchain.Checkpoint) []byte {
	t.Helper()
	msg, err := auditchain.Sign(&c, key)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func TestCheckpointRoundTrip(t *testing.T) {
	key := newKey(t)
	_, _, hashes := chainOf(3)
	at := time.Date(2026, 12, 1, 20, 0, 0, 123, time.UTC)
	msg := signed(t, key, auditchain.Checkpoint{Origin: "registry.example.com/audit", Length: 3, Head: hashes[2], Time: at})
	lines := strings.Split(string(msg), "\n")
	if lines[0] != "registry.example.com/audit" || lines[1] != "3" || lines[3] != "time 2026-12-01T20:00:00Z" || lines[4] != "" ||
		!strings.HasPrefix(lines[5], "— registry.example.com/audit ") {
		t.Fatalf("note:\n%s", msg)
	}
	cp, keyID, err := auditchain.Open(msg, []ed25519.PublicKey{newKey(t).Public(), key.Public()})
	if err != nil {
		t.Fatal(err)
	}
	if cp.Origin != "registry.example.com/audit" || cp.Length != 3 || cp.Head != hashes[2] || !cp.Time.Equal(at.Truncate(time.Second)) || keyID != key.ID {
		t.Fatalf("opened %+v by %s", cp, keyID)
	}
}

func TestOpenRefuses(t *testing.T) {
	key, other := newKey(t), newKey(t)
	_, _, hashes := chainOf(2)
	good := signed(t, key, auditchain.Checkpoint{Origin: "reg", Length: 2, Head: hashes[1], Time: time.Now()})
	text, sigs, _ := strings.Cut(string(good), "\n\n")
	otherOrigin := signed(t, key, auditchain.Checkpoint{Origin: "another", Length: 2, Head: hashes[1], Time: time.Now()})
	_, otherSig, _ := strings.Cut(string(otherOrigin), "\n\n")
	cases := []struct {
		name string
		msg  string
		keys []ed25519.PublicKey
		want error
		says string
	}{
		{"signed by another key", string(good), []ed25519.PublicKey{other.Public()}, auditchain.ErrSignature, "not signed by any"},
		{"no keys", string(good), nil, auditchain.ErrSignature, "no trusted keys"},
		{"length changed", strings.Replace(text, "\n2\n", "\n3\n", 1) + "\n\n" + sigs, []ed25519.PublicKey{key.Public()}, auditchain.ErrSignature, "does not verify"},
		{"signature of another origin", text + "\n\n" + otherSig, []ed25519.PublicKey{key.Public()}, auditchain.ErrSignature, "does not verify"},
		{"unsigned", text + "\n", []ed25519.PublicKey{key.Public()}, auditchain.ErrMalformed, "malformed"},
		{"too large", strings.Repeat("x", auditchain.MaxNoteBytes+1), []ed25519.PublicKey{key.Public()}, auditchain.ErrMalformed, "limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := auditchain.Open([]byte(tc.msg), tc.keys)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want %v saying %q", err, tc.want, tc.says)
			}
		})
	}
}

// TestOpenRefusesMalformedText signs texts that are not checkpoints with a
// trusted key: the signature holds, the format does not.
func TestOpenRefusesMalformedText(t *testing.T) {
	key := newKey(t)
	head := "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	for name, text := range map[string]string{
		"three lines":     "reg\n1\n" + head + "\n",
		"five lines":      "reg\n1\n" + head + "\ntime 2026-12-01T20:00:00Z\nextra\n",
		"zero length":     "reg\n0\n" + head + "\ntime 2026-12-01T20:00:00Z\n",
		"leading zero":    "reg\n01\n" + head + "\ntime 2026-12-01T20:00:00Z\n",
		"short head":      "reg\n1\nAAAA\ntime 2026-12-01T20:00:00Z\n",
		"no time prefix":  "reg\n1\n" + head + "\n2026-12-01T20:00:00Z\n",
		"non-UTC time":    "reg\n1\n" + head + "\ntime 2026-12-01T21:00:00+01:00\n",
		"space in origin": "my reg\n1\n" + head + "\ntime 2026-12-01T20:00:00Z\n",
		"negative length": "reg\n-1\n" + head + "\ntime 2026-12-01T20:00:00Z\n",
		"url-safe base64": "reg\n1\n" + strings.Repeat("_", 43) + "=\ntime 2026-12-01T20:00:00Z\n",
	} {
		t.Run(name, func(t *testing.T) {
			msg := signText(t, key, "reg", text)
			if _, _, err := auditchain.Open(msg, []ed25519.PublicKey{key.Public()}); !errors.Is(err, auditchain.ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

func TestSignRefusesBadCheckpoints(t *testing.T) {
	key := newKey(t)
	_, _, hashes := chainOf(1)
	for name, c := range map[string]auditchain.Checkpoint{
		"origin with plus": {Origin: "a+b", Length: 1, Head: hashes[0]},
		"empty origin":     {Origin: "", Length: 1, Head: hashes[0]},
		"zero length":      {Origin: "reg", Length: 0, Head: hashes[0]},
		"upper-case hex":   {Origin: "reg", Length: 1, Head: strings.ToUpper(hashes[0])},
		"no prefix":        {Origin: "reg", Length: 1, Head: strings.TrimPrefix(hashes[0], "sha256:")},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := auditchain.Sign(&c, key); !errors.Is(err, auditchain.ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

func TestChainAgainstCheckpoint(t *testing.T) {
	entries, prev, hashes := chainOf(5)
	cp := &auditchain.Checkpoint{Origin: "reg", Length: 3, Head: hashes[2], Time: time.Now()}
	replay := func(entries []auditchain.Entry, prev, hashes []string) error {
		c := auditchain.NewChain(cp)
		for i, e := range entries {
			if err := c.Add(e, prev[i], hashes[i]); err != nil {
				return err
			}
		}
		return c.Close()
	}
	if err := replay(entries, prev, hashes); err != nil {
		t.Fatalf("intact chain: %v", err)
	}
	// The attack: change event 2 and recompute every later hash.
	forged := append([]auditchain.Entry(nil), entries...)
	forged[1].Reason = "nothing to see"
	fprev, fhashes := make([]string, 5), make([]string, 5)
	head := auditchain.Genesis
	for i, e := range forged {
		fprev[i], fhashes[i] = head, auditchain.Hash(head, e)
		head = fhashes[i]
	}
	if err := replay(forged, fprev, fhashes); !errors.Is(err, auditchain.ErrRewritten) || !strings.Contains(err.Error(), "after event 3") {
		t.Fatalf("rewritten chain: %v", err)
	}
	if err := replay(entries[:2], prev[:2], hashes[:2]); !errors.Is(err, auditchain.ErrTruncated) || !strings.Contains(err.Error(), "has 2 events") {
		t.Fatalf("truncated chain: %v", err)
	}
	var br *auditchain.BreakError
	if err := replay(forged, prev, hashes); !errors.As(err, &br) || br.Seq != 2 || !strings.Contains(br.Problem, "altered") {
		t.Fatalf("inconsistent chain: %v", err)
	}
}

// signText signs any text as a note under name, as a registry key could.
func signText(t testing.TB, key *signing.Key, name, text string) []byte {
	t.Helper()
	msg, err := auditchain.SignText(name, text, key)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// FuzzOpen: no input makes Open panic, and what it accepts re-encodes to
// the same text.
func FuzzOpen(f *testing.F) {
	key := newKey(f)
	_, _, hashes := chainOf(1)
	good, _ := auditchain.Sign(&auditchain.Checkpoint{Origin: "reg", Length: 1, Head: hashes[0], Time: time.Unix(0, 0)}, key)
	f.Add(string(good))
	f.Add("reg\n1\nAAAA\ntime x\n")
	f.Fuzz(func(t *testing.T, text string) {
		msgs := [][]byte{[]byte(text)}
		if msg, err := auditchain.SignText("reg", text+"\n", key); err == nil {
			msgs = append(msgs, msg)
		}
		for _, msg := range msgs {
			cp, _, err := auditchain.Open(msg, []ed25519.PublicKey{key.Public()})
			if err != nil {
				continue
			}
			again, err := cp.Text()
			if err != nil || !strings.HasPrefix(string(msg), again) {
				t.Fatalf("accepted %q, re-encodes to %q (%v)", msg, again, err)
			}
		}
	})
}

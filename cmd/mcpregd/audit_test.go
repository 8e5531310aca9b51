package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/signing"
)

// TestAuditVerifyCheckpoint: mcpregd audit verify --checkpoint replays the
// database against a signed note. On 7c214d5 `audit verify` reported
// "audit chain ok: 6 events" after event 1 was rewritten with every later
// hash recomputed, and "audit chain ok: 2 events" after the log was cut to
// two; against a checkpoint both fail, as do a note signed by another key
// and a note without --key.
func TestAuditVerifyCheckpoint(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		dir := t.TempDir()
		dsn := storetest.EmptyDSN(t, dialect)
		env := map[string]string{"MCPREG_DB": dsn}
		for _, n := range []string{"a", "b", "c"} {
			if _, err := run(t, env, "token", "create", "--name", n, "--role", "reviewer"); err != nil {
				t.Fatal(err)
			}
		}
		key, other := newTestKey(t), newTestKey(t)
		keyFile, pubFile, otherPub := filepath.Join(dir, "d.key"), writePub(t, dir, "d.pub", key), writePub(t, dir, "o.pub", other)
		if err := signing.WriteKeyFile(keyFile, key); err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = st.Close() }()
		svc, err := registry.New(ctx, st, registry.WithDiscoverySigner(&registry.DiscoverySigner{Keys: &signing.KeySet{Current: key}}),
			registry.WithCheckpoints(registry.Checkpoints{Every: 5}))
		if err != nil {
			t.Fatal(err)
		}
		if n, err := svc.Audit.WriteCheckpoints(ctx); err != nil || n != 1 {
			t.Fatalf("checkpoint at 5: wrote %d, %v", n, err)
		}
		noteBytes, err := svc.Audit.LatestCheckpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		note := filepath.Join(dir, "cp.note")
		if err := os.WriteFile(note, noteBytes, 0o600); err != nil {
			t.Fatal(err)
		}

		verify := func(args ...string) (string, error) {
			return run(t, env, append([]string{"audit", "verify"}, args...)...)
		}
		for _, k := range []string{pubFile, keyFile} {
			if out, err := verify("--checkpoint", note, "--key", k); err != nil || !strings.Contains(out, "checkpoint ok:") || !strings.Contains(out, "5 events") {
				t.Fatalf("intact (--key %s): %v\n%s", k, err, out)
			}
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--checkpoint", note, "--key", otherPub}, "not signed by any"},
			{[]string{"--checkpoint", note, "--key", otherPub, "--key", pubFile}, ""},
			{[]string{"--checkpoint", note}, "needs --key"},
			{[]string{"--key", pubFile}, "applies with --checkpoint"},
			{[]string{"--checkpoint", pubFile, "--key", pubFile}, "malformed"},
		} {
			out, err := verify(tc.args...)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%v: %v\n%s, want %q", tc.args, err, out, tc.want)
			}
		}

		storetest.RewriteAuditEvent(t, st, 1, "nothing to see")
		if out, err := verify(); err != nil || !strings.Contains(out, "audit chain ok: 6 events") {
			t.Fatalf("the rewrite is meant to pass the chain check: %v\n%s", err, out)
		}
		out, err := verify("--checkpoint", note, "--key", pubFile)
		if err == nil || !strings.Contains(err.Error(), "rewritten before the checkpoint") {
			t.Fatalf("rewritten: %v\n%s", err, out)
		}
		storetest.TruncateAudit(t, st, 2)
		if out, err := verify(); err != nil || !strings.Contains(out, "audit chain ok: 2 events") {
			t.Fatalf("the cut is meant to pass the chain check: %v\n%s", err, out)
		}
		out, err = verify("--checkpoint", note, "--key", pubFile)
		if err == nil || !strings.Contains(err.Error(), "shorter than the checkpoint") {
			t.Fatalf("truncated: %v\n%s", err, out)
		}
	})
}

func newTestKey(t *testing.T) *signing.Key {
	t.Helper()
	k, err := signing.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writePub(t *testing.T, dir, name string, k *signing.Key) string {
	t.Helper()
	pub, err := signing.MarshalPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

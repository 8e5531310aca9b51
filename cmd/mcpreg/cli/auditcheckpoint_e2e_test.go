package cli_test

import (
	"context"
	"crypto/ed25519"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/signing"
)

// writeKey makes an Ed25519 key file and returns its path and the path of
// its public PEM.
func writeKey(t *testing.T, dir, name string) (keyFile, pubFile string) {
	t.Helper()
	k, err := signing.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	keyFile, pubFile = filepath.Join(dir, name+".key"), filepath.Join(dir, name+".pub")
	if err := signing.WriteKeyFile(keyFile, k); err != nil {
		t.Fatal(err)
	}
	pub, err := signing.MarshalPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pubFile, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	return keyFile, pubFile
}

// TestAuditVerifyCheckpointCLI: mcpreg audit verify --checkpoint recomputes
// the chain from the events the API serves. A consistent rewrite of an
// early event passes the service's own verify (as it did on 7c214d5) and
// fails here; so do a note signed by another key and a shortened log.
func TestAuditVerifyCheckpointCLI(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		ctx := context.Background()
		dir := t.TempDir()
		keyFile, pubFile := writeKey(t, dir, "discovery")
		otherKey, otherPub := writeKey(t, dir, "other")
		in := servertest.Start(t, dialect, func(c *config.Config) {
			c.DiscoveryKey, c.AuditCheckpointEvery, c.AuditCheckpointOrigin = keyFile, 4, "registry.example.com"
		})
		admin := in.Token(t, "root", registry.RoleAdmin)
		host := in.HostToken(t, "laptop")
		in.Token(t, "alice", registry.RoleReviewer)
		in.Token(t, "bob", registry.RoleReviewer) // 8 events: principal and token each
		if _, err := in.Service.Audit.WriteCheckpoints(ctx); err != nil {
			t.Fatal(err)
		}

		// The latest note, without a token, as text.
		resp, err := http.Get(in.URL + "/.well-known/mcpreg/audit-checkpoint")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
			!strings.HasPrefix(string(body), "registry.example.com\n8\n") {
			t.Fatalf("well-known checkpoint: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		out, err := runCLI(t, in.URL, host, "audit", "checkpoints", "--latest")
		if err != nil || out != string(body) {
			t.Fatalf("audit checkpoints --latest (host token): %v\n%q, want %q", err, out, body)
		}
		note := writeFile(t, dir, "checkpoint.note", []byte(out))
		if out, err := runCLI(t, in.URL, host, "audit", "checkpoints"); err != nil || !strings.Contains(out, "registry.example.com") ||
			!strings.Contains(out, "\n8 ") || !strings.Contains(out, "\n4 ") {
			t.Fatalf("audit checkpoints: %v\n%s", err, out)
		}

		verify := func(args ...string) (string, error) {
			return runCLI(t, in.URL, admin, append([]string{"audit", "verify"}, args...)...)
		}
		if out, err := verify("--checkpoint", note, "--key", pubFile); err != nil ||
			!strings.Contains(out, "recomputed here): 8 events") || !strings.Contains(out, "checkpoint ok: registry.example.com, 8 events") {
			t.Fatalf("intact log: %v\n%s", err, out)
		}
		if out, err := verify("--checkpoint", note); err != nil || !strings.Contains(out, "warning: no --key") {
			t.Fatalf("published keys: %v\n%s", err, out)
		}
		if out, err := verify("--checkpoint", note, "--key", otherPub); err == nil || !strings.Contains(err.Error(), "not signed by any") {
			t.Fatalf("another key: %v\n%s", err, out)
		}
		forged := writeFile(t, dir, "forged.note", signedBy(t, otherKey, pubFile, note))
		if out, err := verify("--checkpoint", forged, "--key", pubFile); err == nil || !strings.Contains(err.Error(), "not signed by any") {
			t.Fatalf("note signed by another key: %v\n%s", err, out)
		}

		storetest.RewriteAuditEvent(t, in.Store, 2, "nothing to see")
		if out, err := verify(); err != nil || !strings.Contains(out, "audit chain ok: 8 events") {
			t.Fatalf("the service's verify is meant to miss the rewrite: %v\n%s", err, out)
		}
		out, err = verify("--checkpoint", note, "--key", pubFile)
		if err == nil || !strings.Contains(err.Error(), "rewritten before the checkpoint") || !strings.Contains(err.Error(), "at or before 8") {
			t.Fatalf("rewritten log: %v\n%s", err, out)
		}

		storetest.TruncateAudit(t, in.Store, 6)
		out, err = verify("--checkpoint", note, "--key", pubFile)
		if err == nil || !strings.Contains(err.Error(), "shorter than the checkpoint") || !strings.Contains(err.Error(), "has 6 events") {
			t.Fatalf("truncated log: %v\n%s", err, out)
		}
	})
}

// signedBy signs the checkpoint of the note at path (signed by the key
// in pubFile) again with the key in keyFile: same origin, length, head.
func signedBy(t *testing.T, keyFile, pubFile, path string) []byte {
	t.Helper()
	data, _ := os.ReadFile(path)
	pemBytes, _ := os.ReadFile(pubFile)
	pub, err := signing.ParsePublicKey(pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	cp, _, err := auditchain.Open(data, []ed25519.PublicKey{pub})
	if err != nil {
		t.Fatal(err)
	}
	k, err := signing.LoadKeyFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := auditchain.Sign(cp, k)
	if err != nil {
		t.Fatal(err)
	}
	return forged
}

package server_test

import (
	"crypto/ed25519"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/wiring"
	"github.com/mcpreg/mcpreg/signing"
)

// TestDiscoveryKeyRotation: after a rotation the new key signs, and the
// old one stays published as retiring so documents it signed still
// verify until they expire.
func TestDiscoveryKeyRotation(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		dir := t.TempDir()
		oldKey, _ := signing.GenerateKey()
		newKey, _ := signing.GenerateKey()
		if err := signing.WriteKeyFile(filepath.Join(dir, "new.key"), newKey); err != nil {
			t.Fatal(err)
		}
		oldPub, _ := signing.MarshalPublicKey(oldKey.Public())
		if err := os.WriteFile(filepath.Join(dir, "old.pub"), oldPub, 0o644); err != nil {
			t.Fatal(err)
		}
		in := servertest.Start(t, dialect, func(c *config.Config) {
			c.DiscoveryKey = filepath.Join(dir, "new.key")
			c.DiscoveryPreviousKeys = []string{filepath.Join(dir, "old.pub")}
		})
		var ks struct{ Keys []signing.PublishedKey }
		if err := json.Unmarshal(ok(t, "keys", call(t, "GET", in.URL+"/.well-known/mcpreg/discovery-keys.json", "", nil)).Body, &ks); err != nil {
			t.Fatal(err)
		}
		if len(ks.Keys) != 2 || ks.Keys[0].ID != newKey.ID || ks.Keys[0].Status != signing.StatusCurrent ||
			ks.Keys[1].ID != oldKey.ID || ks.Keys[1].Status != signing.StatusRetiring || ks.Keys[1].NotAfter == nil {
			t.Fatalf("published keys: %+v", ks.Keys)
		}
		r := ok(t, "resolve", call(t, "GET", in.URL+"/v1/discovery/servers", in.HostToken(t, "fleet"), nil))
		if _, id, err := signing.Verify(r.Body, signing.PayloadType, map[string]ed25519.PublicKey{newKey.ID: newKey.Public()}); err != nil || id != newKey.ID {
			t.Fatalf("signed with %q: %v", id, err)
		}

		// A document the old key signed before the rotation still verifies
		// with what the registry publishes.
		published := map[string]ed25519.PublicKey{}
		for _, k := range ks.Keys {
			pub, err := signing.ParsePublicKey([]byte(k.PublicKeyPEM))
			if err != nil {
				t.Fatal(err)
			}
			published[k.ID] = pub
		}
		before, err := signing.Sign(oldKey, signing.PayloadType, []byte(`{"type":"mcpreg-discovery-v1"}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, id, err := signing.Verify(before, signing.PayloadType, published); err != nil || id != oldKey.ID {
			t.Fatalf("document of the retiring key: %q %v", id, err)
		}

		// A key file readable by others is refused at start.
		loose := filepath.Join(dir, "loose.key")
		if err := signing.WriteKeyFile(loose, oldKey); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(loose, 0o644)
		cfg := config.DefaultConfig()
		cfg.DiscoveryKey = loose
		if _, err := wiring.DiscoverySignerFrom(cfg, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
			t.Fatal("a world-readable signing key was accepted")
		}
		cfg.DiscoveryKey, cfg.DiscoveryPreviousKeys = filepath.Join(dir, "new.key"), []string{filepath.Join(dir, "missing.pub")}
		if _, err := wiring.DiscoverySignerFrom(cfg, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
			t.Fatal("a missing previous key was accepted")
		}
	})
}

package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"go/token"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/schema"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// rawValues must come back byte for byte: hashes are computed over them.
func rawValues(t *testing.T) map[string][]byte {
	t.Helper()
	big := make([]byte, 1<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	return map[string][]byte{
		"json with whitespace": []byte(" {\n\t\"name\" : \"weather\",\r\n  \"description\":\"Prévisions météo 🌦 — «quoted» \\u00e9\"  } \n"),
		"non-ASCII UTF-8":      []byte("{\"title\":\"天気 погода ☔\u200b\u202e\U000E0041\"}"),
		"every byte value":     all,
		"1 MiB random":         big,
		"empty":                {},
	}
}

func TestBytesRoundTrip(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		f := newFixture(ctx, t, s.Client)
		snap := s.Client.ToolSnapshot.Create().SetVersion(f.version).SaveX(ctx)
		pos := 0
		for name, raw := range rawValues(t) {
			t.Run(name, func(t *testing.T) {
				pos++
				tool, err := s.Client.Tool.Create().SetSnapshot(snap).SetPosition(pos).
					SetName(name).SetRaw(raw).SetToolHash("sha256:x").Save(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := s.Client.Tool.GetX(ctx, tool.ID).Raw; !bytes.Equal(got, raw) {
					t.Errorf("tool.raw: got %d bytes, want %d, equal prefix %v", len(got), len(raw), bytes.HasPrefix(raw, got))
				}
				v, err := s.Client.Version.Create().SetServer(f.server).SetVersion("2.0." + name).
					SetServerJSON(raw).SetSubmittedBy("alice").Save(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := s.Client.Version.GetX(ctx, v.ID).ServerJSON; !bytes.Equal(got, raw) {
					t.Errorf("version.server_json: got %d bytes, want %d", len(got), len(raw))
				}
			})
		}
	})
}

// TestCreateAndGet writes every entity and reads it back unchanged.
func TestCreateAndGet(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		c := s.Client
		f := newFixture(ctx, t, c)
		at := time.Date(2025, 6, 30, 23, 59, 59, 999999000, time.UTC)
		instructions := "Use the weather tools."
		snap := c.ToolSnapshot.Create().SetVersion(f.version).SetProtocolVersion("2025-06-18").
			SetServerInfo([]byte(`{"name":"weather","version":"1.0.0"}`)).SetInstructions(instructions).SaveX(ctx)
		created := []any{
			f.principal, f.server, f.version, snap,
			c.Token.Create().SetPublicID("tok_1").SetSecretHash("sha256:aa").SetPrincipal(f.principal).SetExpiresAt(at).SaveX(ctx),
			c.Tool.Create().SetSnapshot(snap).SetPosition(0).SetName("forecast").SetRaw([]byte(`{"name":"forecast"}`)).SetToolHash("sha256:bb").SaveX(ctx),
			c.PinRevision.Create().SetVersion(f.version).SetRevision(1).SetSnapshotID(snap.ID).SetSpecVersion("mcpreg-pin-v1").
				SetToolDefinitionHash("sha256:cc").SetSchemaHash("sha256:dd").SetInstructionsHash("sha256:ee").
				SetTools([]schema.ToolPinRecord{{Name: "forecast", Hash: "sha256:bb"}}).SetCreatedBy("bob").SaveX(ctx),
			c.ReviewDecision.Create().SetVersion(f.version).SetAction("approve").SetFromState("pending_review").
				SetToState("approved").SetActor("bob").SetReason("looks fine").SaveX(ctx),
			c.AuditEvent.Create().SetSeq(1).SetOccurredAt(at).SetActor("bob").SetAction("approve").
				SetSubject("io.github.acme/weather@1.0.0").SetPrevHash("").SetHash("sha256:ff").SaveX(ctx),
			c.AuditHead.Create().SetSeq(1).SetHash("sha256:ff").SaveX(ctx),
			c.IdempotencyKey.Create().SetPrincipal("alice").SetKey("k1").SetRequestHash("sha256:11").SetVersionID(f.version.ID).SaveX(ctx),
		}
		for _, want := range created {
			got := reread(ctx, t, c, want)
			if diff := cmp.Diff(want, got, cmpEntities); diff != "" {
				t.Errorf("%T read back differs (-created +read):\n%s", want, diff)
			}
		}
	})
}

// cmpEntities compares the columns of ent entities: exported fields except
// the loaded edges.
var cmpEntities = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && (!token.IsExported(sf.Name()) || sf.Name() == "Edges")
}, cmp.Ignore())

func reread(ctx context.Context, t *testing.T, c *ent.Client, e any) any {
	t.Helper()
	var (
		got any
		err error
	)
	switch e := e.(type) {
	case *ent.Principal:
		got, err = c.Principal.Get(ctx, e.ID)
	case *ent.Server:
		got, err = c.Server.Get(ctx, e.ID)
	case *ent.Version:
		got, err = c.Version.Get(ctx, e.ID)
	case *ent.ToolSnapshot:
		got, err = c.ToolSnapshot.Get(ctx, e.ID)
	case *ent.Token:
		got, err = c.Token.Get(ctx, e.ID)
	case *ent.Tool:
		got, err = c.Tool.Get(ctx, e.ID)
	case *ent.PinRevision:
		got, err = c.PinRevision.Get(ctx, e.ID)
	case *ent.ReviewDecision:
		got, err = c.ReviewDecision.Get(ctx, e.ID)
	case *ent.AuditEvent:
		got, err = c.AuditEvent.Get(ctx, e.ID)
	case *ent.AuditHead:
		got, err = c.AuditHead.Get(ctx, e.ID)
	case *ent.IdempotencyKey:
		got, err = c.IdempotencyKey.Get(ctx, e.ID)
	default:
		t.Fatalf("reread: unknown entity %T", e)
	}
	if err != nil {
		t.Fatalf("reread %T: %v", e, err)
	}
	return got
}

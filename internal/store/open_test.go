package store_test

import (
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

const secret = "Sup3r-S3cret"

// TestErrorsHideThePassword opens DSNs that fail at different stages.
func TestErrorsHideThePassword(t *testing.T) {
	dsns := []string{
		"postgres://mcpreg:" + secret + "@127.0.0.1:1/mcpreg?sslmode=disable&connect_timeout=5",
		"postgresql://mcpreg:" + url.QueryEscape(secret+"/?") + "@127.0.0.1:1/mcpreg?sslmode=disable",
		"postgres://mcpreg:" + secret + "@127.0.0.1:notaport/mcpreg",
		"postgres://mcpreg:" + secret + "@[::1/mcpreg",
		"postgres://mcpreg@127.0.0.1:1/mcpreg?password=" + secret + "&sslmode=disable",
		"postgres://mcpreg:" + secret + "@127.0.0.1/mcpreg?sslmode=nonsense",
		"mysql://root:" + secret + "@127.0.0.1/mcpreg",
	}
	if dsn := os.Getenv(storetest.EnvPostgresDSN); dsn != "" {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(u.User.Username(), secret)
		dsns = append(dsns, u.String()) // the server rejects the password
	}
	for _, dsn := range dsns {
		s, err := store.Open(t.Context(), dsn)
		if err == nil {
			_ = s.Close()
			t.Errorf("Open succeeded with a wrong password or DSN")
			continue
		}
		if strings.Contains(err.Error(), "S3cret") {
			t.Errorf("error shows the password: %v", err)
		}
		t.Logf("%v", err)
	}
}

func TestOpenRejectsUnknownSchemes(t *testing.T) {
	for _, dsn := range []string{"mysql://db/x", "./mcpreg.db", "file:mcpreg.db", ""} {
		_, err := store.Open(t.Context(), dsn)
		if !errors.Is(err, store.ErrUnsupportedDSN) || !strings.Contains(err.Error(), "sqlite://PATH") {
			t.Errorf("Open(%q) = %v, want ErrUnsupportedDSN naming the accepted schemes", dsn, err)
		}
	}
}

func TestPingAndRawQueries(t *testing.T) {
	storetest.ForEachDialect(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		// sql/execquery: raw SQL through the client and inside a transaction.
		if _, err := s.Client.ExecContext(ctx, "UPDATE audit_heads SET seq = seq"); err != nil {
			t.Fatal(err)
		}
		err := s.WithTx(ctx, func(tx *ent.Tx) error {
			rows, err := tx.QueryContext(ctx, "SELECT 1")
			if err != nil {
				return err
			}
			return rows.Close()
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseDSN(t *testing.T) {
	tests := []struct {
		dsn, dialect, path string
	}{
		{"sqlite://./mcpreg.db", DialectSQLite, "./mcpreg.db"},
		{"sqlite://mcpreg.db", DialectSQLite, "mcpreg.db"},
		{"sqlite:///var/lib/mcpreg/mcpreg.db", DialectSQLite, "/var/lib/mcpreg/mcpreg.db"},
		{"sqlite://:memory:", DialectSQLite, ":memory:"},
		{"sqlite://file:x.db", DialectSQLite, "./file:x.db"},
		{"postgres://u:p@db.example:5432/mcpreg?sslmode=verify-full", DialectPostgres, ""},
		{"postgresql://u@db.example/mcpreg", DialectPostgres, ""},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			got, err := parseDSN(tt.dsn)
			if err != nil {
				t.Fatal(err)
			}
			if got.dialect != tt.dialect || got.path != tt.path {
				t.Errorf("got dialect %q path %q, want %q %q", got.dialect, got.path, tt.dialect, tt.path)
			}
		})
	}
}

func TestParseDSNRejects(t *testing.T) {
	tests := []struct {
		dsn, want string
	}{
		{"", "want \"sqlite://PATH\", \"postgres://...\" or \"postgresql://...\""},
		{"./mcpreg.db", "sqlite://PATH"},
		{"mysql://root:hunter2@db/mcpreg", `got scheme "mysql"`},
		{"sqlite3://x.db", `got scheme "sqlite3"`},
		{"sqlite://", "no path"},
		{"sqlite://x.db?mode=ro", "without query parameters"},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			_, err := parseDSN(tt.dsn)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
	if _, err := parseDSN("mysql://x"); !errors.Is(err, ErrUnsupportedDSN) {
		t.Errorf("error %v is not ErrUnsupportedDSN", err)
	}
}

func TestRedact(t *testing.T) {
	target, err := parseDSN("postgres://mcpreg:p%40ss%2Fw0rd@127.0.0.1/x")
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("cause")
	for _, msg := range []string{"p@ss/w0rd", "p%40ss%2Fw0rd", "p@ss%2Fw0rd"} {
		err := target.redact(fmt.Errorf("connect with %s: %w", msg, cause))
		if strings.Contains(err.Error(), "w0rd") {
			t.Errorf("redacted error %q shows the password", err)
		}
		if !errors.Is(err, cause) {
			t.Errorf("redacted error lost its cause")
		}
	}
	plain := errors.New("nothing secret")
	if target.redact(plain) != plain { //nolint:errorlint // redact must return this very error, not one wrapping it
		t.Error("redact rewrote an error without the password")
	}
}

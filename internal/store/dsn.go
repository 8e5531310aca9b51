package store

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// dsnTarget is a parsed DSN.
type dsnTarget struct {
	dialect string
	path    string // sqlite: file path, or ":memory:"
	url     string // postgres: the connection URL as given
	secrets []string
}

const memoryPath = ":memory:"

func parseDSN(dsn string) (*dsnTarget, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite://"):
		return parseSQLiteDSN(strings.TrimPrefix(dsn, "sqlite://"))
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return parsePostgresDSN(dsn)
	}
	if i := strings.Index(dsn, "://"); i > 0 {
		return nil, fmt.Errorf("store: %w; got scheme %q", ErrUnsupportedDSN, dsn[:i])
	}
	return nil, fmt.Errorf("store: %w", ErrUnsupportedDSN)
}

func parseSQLiteDSN(path string) (*dsnTarget, error) {
	switch {
	case path == "":
		return nil, errors.New(`store: sqlite DSN has no path: want "sqlite://PATH"`)
	case strings.ContainsAny(path, "?#"):
		return nil, fmt.Errorf("store: sqlite DSN %q: a path only, without query parameters (the store sets its own)", "sqlite://"+path)
	case strings.HasPrefix(path, "file:"):
		path = "./" + path // a plain file name, not an SQLite URI
	}
	return &dsnTarget{dialect: DialectSQLite, path: path}, nil
}

func parsePostgresDSN(dsn string) (*dsnTarget, error) {
	t := &dsnTarget{dialect: DialectPostgres, url: dsn, secrets: rawPassword(dsn)}
	u, err := url.Parse(dsn)
	if err != nil {
		// url errors quote the whole DSN, password included.
		return nil, errors.New("store: postgres DSN is not a valid URL")
	}
	if pw, ok := u.User.Password(); ok {
		t.secrets = append(t.secrets, pw, url.QueryEscape(pw), url.PathEscape(pw))
	}
	if pw := u.Query().Get("password"); pw != "" {
		t.secrets = append(t.secrets, pw, url.QueryEscape(pw))
	}
	return t, nil
}

// rawPassword returns the password of a URL's user info as written, found
// without a URL parser so that it works on malformed DSNs too.
func rawPassword(dsn string) []string {
	_, rest, _ := strings.Cut(dsn, "://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return nil
	}
	if _, pw, ok := strings.Cut(rest[:at], ":"); ok && pw != "" {
		return []string{pw}
	}
	return nil
}

// redact removes the DSN's password from err's message.
func (t *dsnTarget) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, s := range t.secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// redactedError keeps the cause for errors.Is/As but not its text.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
)

// TestUserAdd: mcpregd user add creates a web user whose password signs
// in, gives an existing principal (with CLI tokens) a password, and
// refuses short passwords, other roles and a role change; the password
// never appears in the output.
func TestUserAdd(t *testing.T) {
	storetest.EachDialect(t, userAdd)
}

func userAdd(t *testing.T, dialect string) {
	dsn := storetest.EmptyDSN(t, dialect)
	env := map[string]string{"MCPREG_DB": dsn}
	const pw = "correct horse battery staple"
	out, err := runWithInput(t, env, pw+"\n", "user", "add", "rita", "--role", "reviewer")
	if err != nil || strings.Contains(out, pw) {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	if _, err := run(t, env, "token", "create", "--name", "alice", "--role", "admin"); err != nil {
		t.Fatal(err)
	}
	if out, err := runWithInput(t, env, pw, "user", "add", "alice", "--role", "admin"); err != nil {
		t.Fatalf("password for an existing principal: %v\n%s", err, out)
	}
	for _, c := range []struct {
		input string
		args  []string
		want  string
	}{
		{"short\n", []string{"user", "add", "sam", "--role", "reviewer"}, "at least 12"},
		{"", []string{"user", "add", "sam", "--role", "reviewer"}, "no password"},
		{pw, []string{"user", "add", "sam", "--role", "owner"}, "reviewers or admins"},
		{pw, []string{"user", "add", "alice", "--role", "reviewer"}, "exists with role admin"},
	} {
		if out, err := runWithInput(t, env, c.input, c.args...); err == nil || !strings.Contains(out+err.Error(), c.want) {
			t.Errorf("%v: %v %s, want an error with %q", c.args, err, out, c.want)
		}
	}

	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	reg, err := registry.New(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	svc := identity.New(st, reg.Audit.AuditWriter())
	ws, err := svc.SignIn(context.Background(), "rita", pw, "127.0.0.1")
	if err != nil || ws.Caller.Principal != "rita" || ws.Caller.Role != registry.RoleReviewer {
		t.Fatalf("sign in: %+v %v", ws, err)
	}
	if _, err := svc.SignIn(context.Background(), "rita", pw+"x", "127.0.0.1"); !errors.Is(err, registry.ErrUnauthenticated) {
		t.Fatalf("wrong password: %v", err)
	}
	if out, err := run(t, env, "audit", "verify"); err != nil || !strings.Contains(out, "audit chain ok") {
		t.Fatalf("audit: %v %s", err, out)
	}
}

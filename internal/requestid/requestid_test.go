package requestid_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/requestid"
)

func TestAccept(t *testing.T) {
	for _, given := range []string{"abc", "req-1.2_3", strings.Repeat("a", 64)} {
		if got := requestid.Accept(given); got != given {
			t.Errorf("Accept(%q) = %q, want it kept", given, got)
		}
	}
	for _, given := range []string{"", "a b", "x\r\nSet-Cookie: y", strings.Repeat("a", 65), "ünï"} {
		got := requestid.Accept(given)
		if got == given || len(got) != 24 {
			t.Errorf("Accept(%q) = %q, want a fresh id", given, got)
		}
	}
	if a, b := requestid.New(), requestid.New(); a == b {
		t.Error("two fresh ids are equal")
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	if id := requestid.From(ctx); id != "" {
		t.Fatalf("From(empty) = %q", id)
	}
	if id := requestid.From(requestid.With(ctx, "r1")); id != "r1" {
		t.Fatalf("From(With(r1)) = %q", id)
	}
}

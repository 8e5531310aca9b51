package web

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/mcpreg/mcpreg/internal/apierr"
)

// TestDescribeUsesTheTable: the web UI answers every registry sentinel
// with the HTTP status the API gives it, and the sentinel's words trimmed.
func TestDescribeUsesTheTable(t *testing.T) {
	a := &app{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	r := httptest.NewRequest("GET", "/servers", nil)
	for _, e := range apierr.Entries() {
		if status, msg := a.describe(r, fmt.Errorf("%w: the cause", e.Err)); status != e.HTTP || msg != "the cause" {
			t.Errorf("%v: %d %q, want %d %q", e.Err, status, msg, e.HTTP, "the cause")
		}
	}
}

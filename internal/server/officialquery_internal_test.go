package server

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/registry"
)

// TestOfficialQuery: /v0.1/servers parameters are read in the transport,
// and a rejected one is answered as the official registry does, with the
// status and words the registry domain used to produce.
func TestOfficialQuery(t *testing.T) {
	a := &officialAPI{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, c := range []struct {
		query, detail string
		status        int
	}{
		{"limit=ten", "validation failed", 422},
		{"limit=01", "validation failed", 422},
		{"limit=0", "validation failed", 422},
		{"limit=101", "validation failed", 422},
		{"include_deleted=maybe", "validation failed", 422},
		{"search=ab", "search must contain at least 3 characters after trimming surrounding whitespace", 422},
		{"search=+ab+", "search must contain at least 3 characters after trimming surrounding whitespace", 422},
		{"updated_since=yesterday", "Invalid updated_since format: expected RFC3339 timestamp (e.g., 2025-08-07T13:15:04.280Z)", 400},
		{"updated_since=2025-08-07T13:15:04Z&include_deleted=false", "Cannot set include_deleted=false when using updated_since (incremental sync requires deleted servers)", 400},
	} {
		t.Run(c.query, func(t *testing.T) {
			v, _ := url.ParseQuery(c.query)
			_, err := officialQuery(v)
			if err == nil {
				t.Fatal("accepted")
			}
			w := httptest.NewRecorder()
			a.fail(w, httptest.NewRequest("GET", "/v0.1/servers?"+c.query, nil), err)
			var body struct {
				Detail, Error string
				Errors        []struct{ Message, Location string }
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if w.Code != c.status || body.Detail != c.detail || body.Error != c.detail {
				t.Fatalf("%d %q, want %d %q", w.Code, body.Detail, c.status, c.detail)
			}
			// Schema validation failures name the parameter in errors[],
			// as the official registry's do.
			if param, _, _ := strings.Cut(c.query, "="); c.detail == "validation failed" &&
				(len(body.Errors) != 1 || body.Errors[0].Location != "query."+param || body.Errors[0].Message == "") {
				t.Fatalf("errors[]: %+v", body.Errors)
			}
		})
	}
	v, _ := url.ParseQuery("cursor=abc&limit=100&search=wea&version=latest&updated_since=2025-08-07T13:15:04Z")
	q, err := officialQuery(v)
	want := registry.OfficialQuery{Cursor: "abc", Limit: 100, Search: "wea", Version: "latest",
		UpdatedSince: time.Date(2025, 8, 7, 13, 15, 4, 0, time.UTC)}
	if err != nil || q.Cursor != want.Cursor || q.Limit != want.Limit || q.Search != want.Search || q.Version != want.Version || !q.UpdatedSince.Equal(want.UpdatedSince) {
		t.Fatalf("officialQuery = %+v, %v; want %+v", q, err, want)
	}
	if q, err := officialQuery(url.Values{}); err != nil || q != (registry.OfficialQuery{}) {
		t.Fatalf("no parameters: %+v, %v", q, err)
	}
}

// FuzzOfficialQuery: any query string is either read into a limit the
// registry accepts or refused as 422 or 400, never anything else.
func FuzzOfficialQuery(f *testing.F) {
	for _, s := range []string{"limit=5", "limit=-1", "limit=1e3", "search=%20%20x", "updated_since=2025-08-07T13:15:04+02:00", "cursor=%ff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := officialQuery(v)
		switch {
		case err == nil:
			if q.Limit < 0 || q.Limit > registry.OfficialMaxLimit {
				t.Fatalf("%q: limit %d accepted", raw, q.Limit)
			}
		case errors.Is(err, errUnprocessable):
		case status.Code(err) == codes.InvalidArgument:
		default:
			t.Fatalf("%q: %v is neither 422 nor 400", raw, err)
		}
	})
}

package server

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/registry"
)

// errUnprocessable is a /v0.1 parameter out of range, which the official
// registry answers with 422 (a malformed one is 400).
var errUnprocessable = errors.New("unprocessable")

// paramError is a query parameter the official registry's schema
// validation refuses: 422 with an errors[] entry naming it.
type paramError struct {
	msg      string // the error's detail
	location string // e.g. query.limit
	value    any
}

func (e *paramError) Error() string { return e.msg }
func (e *paramError) Unwrap() error { return errUnprocessable }

// officialQuery reads the parameters of GET /v0.1/servers as the official
// registry does: limit 1 to 100 and a search of at least 3 characters, or
// 422; updated_since an RFC 3339 time, or 400. The cursor stays opaque:
// the registry issued it and reads it.
func officialQuery(v url.Values) (registry.OfficialQuery, error) {
	q := registry.OfficialQuery{Cursor: v.Get("cursor"), Search: v.Get("search"), Version: v.Get("version")}
	if text := v.Get("limit"); text != "" {
		n, err := officialLimit(text)
		if err != nil {
			return q, err
		}
		q.Limit = n
	}
	if t := strings.TrimSpace(q.Search); q.Search != "" && utf8.RuneCountInString(t) < 3 {
		return q, fmt.Errorf("%w: search must contain at least 3 characters after trimming surrounding whitespace", errUnprocessable)
	}
	if text := v.Get("updated_since"); text != "" {
		since, err := time.Parse(time.RFC3339, text)
		if err != nil {
			return q, status.Errorf(codes.InvalidArgument, "Invalid updated_since format: expected RFC3339 timestamp (e.g., 2025-08-07T13:15:04.280Z)")
		}
		q.UpdatedSince = since
	}
	include, set, err := includeDeleted(v)
	if err != nil {
		return q, err
	}
	if !q.UpdatedSince.IsZero() && set && !include {
		return q, status.Errorf(codes.InvalidArgument, "Cannot set include_deleted=false when using updated_since (incremental sync requires deleted servers)")
	}
	q.IncludeDeleted = include || !q.UpdatedSince.IsZero()
	return q, nil
}

// includeDeleted reads include_deleted as the official registry does: a
// boolean, false when absent.
func includeDeleted(v url.Values) (value, set bool, err error) {
	text, set := v.Get("include_deleted"), v.Has("include_deleted")
	if !set || text == "" {
		return false, false, nil
	}
	b, err := strconv.ParseBool(text)
	if err != nil {
		return false, true, &paramError{msg: "validation failed", location: "query.include_deleted", value: text}
	}
	return b, true, nil
}

func officialLimit(text string) (int, error) {
	n, err := strconv.Atoi(text)
	if err != nil || strconv.Itoa(n) != text {
		return 0, &paramError{msg: fmt.Sprintf("limit %q: want an integer from 1 to %d", text, registry.OfficialMaxLimit), location: "query.limit", value: text}
	}
	if n < 1 {
		return 0, &paramError{msg: "expected number >= 1", location: "query.limit", value: n}
	}
	if n > registry.OfficialMaxLimit {
		return 0, &paramError{msg: fmt.Sprintf("expected number <= %d", registry.OfficialMaxLimit), location: "query.limit", value: n}
	}
	return n, nil
}

package server

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/registry"
)

// errUnprocessable is a /v0.1 parameter out of range, which the official
// registry answers with 422 (a malformed one is 400).
var errUnprocessable = errors.New("unprocessable")

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
	if t := strings.TrimSpace(q.Search); q.Search != "" && len(t) < 3 {
		return q, fmt.Errorf("%w: search %q: want at least 3 characters", errUnprocessable, q.Search)
	}
	if text := v.Get("updated_since"); text != "" {
		since, err := time.Parse(time.RFC3339, text)
		if err != nil {
			return q, status.Errorf(codes.InvalidArgument, "updated_since %q: want an RFC 3339 time, e.g. 2025-08-07T13:15:04Z", text)
		}
		q.UpdatedSince = since
	}
	return q, nil
}

func officialLimit(text string) (int, error) {
	n, err := strconv.Atoi(text)
	if err != nil || strconv.Itoa(n) != text {
		return 0, fmt.Errorf("%w: limit %q: want an integer from 1 to %d", errUnprocessable, text, registry.OfficialMaxLimit)
	}
	if n < 1 || n > registry.OfficialMaxLimit {
		return 0, fmt.Errorf("%w: limit %d: want 1 to %d", errUnprocessable, n, registry.OfficialMaxLimit)
	}
	return n, nil
}

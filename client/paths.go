package client

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// serverPath returns /v1/servers/{namespace}/{name} with each part escaped
// on its own, keeping the one "/" the service's {name=*/*} route expects.
func serverPath(name string) (string, error) {
	ns, rest, ok := strings.Cut(name, "/")
	if !ok || !plainSegment(ns) || !plainSegment(rest) {
		return "", fmt.Errorf("%w: server name %q: want NAMESPACE/NAME, e.g. io.github.acme/weather", ErrInvalid, name)
	}
	return "/v1/servers/" + url.PathEscape(ns) + "/" + url.PathEscape(rest), nil
}

// versionPath returns /v1/servers/{namespace}/{name}/versions/{version}.
func versionPath(name, version string) (string, error) {
	p, err := serverPath(name)
	if err != nil {
		return "", err
	}
	if !plainSegment(version) {
		return "", fmt.Errorf("%w: version %q: want a non-empty version without \"/\"", ErrInvalid, version)
	}
	return p + "/versions/" + url.PathEscape(version), nil
}

// plainSegment reports whether s can stand as one path segment: the service
// would see "/" as a separator even when escaped, and "." or ".." are
// removed by path cleaning.
func plainSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.Contains(s, "/")
}

// query collects non-empty list parameters.
type query url.Values

func (q query) str(key, v string) query {
	if v != "" {
		url.Values(q).Set(key, v)
	}
	return q
}

// page sets the paging parameters of a list request.
func (q query) page(size int32, token string) query {
	if size != 0 {
		url.Values(q).Set("pageSize", strconv.FormatInt(int64(size), 10))
	}
	return q.str("pageToken", token)
}

package registry

import (
	"encoding/base64"
	"strconv"
	"strings"
)

const defaultPageSize = 30

// pageSize clamps a requested page size.
func (s *core) pageSize(n int32) int {
	switch {
	case n < 0:
		return -1
	case n == 0:
		return defaultPageSize
	case int(n) > s.limits.MaxPageSize:
		return s.limits.MaxPageSize
	}
	return int(n)
}

// encodeCursor makes an opaque page token for one kind of list.
func encodeCursor(kind, value string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + value))
}

// decodeCursor reads a page token made for kind; "" means the first page.
func decodeCursor(kind, token string) (string, error) {
	if token == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", invalidf("pageToken is malformed")
	}
	value, ok := strings.CutPrefix(string(b), kind+":")
	if !ok {
		return "", invalidf("pageToken was not issued by this list")
	}
	return value, nil
}

func decodeIntCursor(kind, token string) (int64, error) {
	v, err := decodeCursor(kind, token)
	if err != nil || v == "" {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, invalidf("pageToken is malformed")
	}
	return n, nil
}

package requestid

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"regexp"
)

// Header carries the request id in gRPC metadata and, canonicalised as
// X-Request-Id, in HTTP headers.
const Header = "x-request-id"

var wellFormed = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

type key struct{}

// With returns ctx carrying id.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, key{}, id)
}

// From returns the request id ctx carries, or "".
func From(ctx context.Context) string {
	id, _ := ctx.Value(key{}).(string)
	return id
}

// New returns a fresh random id.
func New() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Accept keeps a caller's id when it is well-formed, else makes one.
func Accept(given string) string {
	if wellFormed.MatchString(given) {
		return given
	}
	return New()
}

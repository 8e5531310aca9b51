package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"regexp"
)

// HeaderRequestID carries the request id in HTTP headers and gRPC metadata.
const HeaderRequestID = "x-request-id"

var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

type requestIDKey struct{}

func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDFrom returns the request id of a call, or "".
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// newRequestID returns a fresh random id.
func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// acceptRequestID keeps a caller's id when it is well-formed, else makes one.
func acceptRequestID(given string) string {
	if requestIDRE.MatchString(given) {
		return given
	}
	return newRequestID()
}

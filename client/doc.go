// Package client is a small typed Go client for the mcpreg REST API (/v1).
//
// It speaks the same JSON the service's gateway serves (protojson,
// lowerCamelCase) and returns the generated mcpregv1 messages, so agent
// hosts, the mcpreg CLI and tests share one implementation:
//
//	c, err := client.New("https://mcpreg.example", os.Getenv("MCPREG_TOKEN"))
//	v, err := c.GetVersion(ctx, "io.github.acme/weather", "1.0.0")
//
// Responses are decoded with unknown fields discarded, so a newer server
// does not break an older client. Bodies are read up to a cap
// ([DefaultMaxResponseBytes], see [WithMaxResponseBytes]).
//
// A failed call returns an [*APIError] carrying the HTTP status, the gRPC
// status code and message from the service's error body and the request id
// the service logged it under; it matches sentinel errors such as
// [ErrNotFound] and [ErrConflict] with errors.Is. Arguments the client can
// reject itself (a server name without a namespace, an empty reason) fail
// before any request with errors matching [ErrInvalid].
//
// The token is sent only in the Authorization header; it never appears in
// errors.
package client

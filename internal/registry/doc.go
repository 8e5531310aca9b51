// Package registry holds mcpreg's use-cases: submitting versions, reading
// servers and versions, moving versions through the review lifecycle,
// principals and tokens, and the hash-chained audit log. It knows nothing of
// gRPC or HTTP; the server package adapts it, and maps its errors.
package registry

// Package requestid gives every request an id that the response, the
// logs, the audit log and internal-error messages share: the caller's own
// X-Request-Id when it is well-formed, else a fresh random one. The HTTP
// middleware and the gRPC interceptor of package server put it in the
// context; handlers (the web UI included) read it from there.
package requestid

// Package server is mcpreg's transport: the gRPC services, the REST gateway
// in front of them, the HTTP endpoints (health, OpenAPI, metrics), and the
// interceptors that authenticate, authorise, log and count every call. It
// validates and maps; the registry package decides.
package server

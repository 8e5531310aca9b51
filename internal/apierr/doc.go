// Package apierr is the one table saying how registry errors reach
// clients: for every sentinel error of package registry, the gRPC code of
// the API and the HTTP status that REST (through the gateway), the
// official read API and the web UI answer with. The transports look errors
// up here instead of keeping tables of their own, so gRPC and HTTP cannot
// disagree about an error.
package apierr

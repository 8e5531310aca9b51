package server

import (
	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
)

// Services are the use-case services the transport and the web UI call,
// built over one store.
type Services struct {
	Registry *registry.Services
	Identity *identity.Service
}

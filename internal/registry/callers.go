package registry

import (
	"context"

	"github.com/mcpreg/mcpreg/internal/domain"
)

// Role, Caller and their helpers live in package domain, shared by every
// service; these names keep the registry's callers as they were.
type (
	// Role is domain.Role.
	Role = domain.Role
	// Caller is domain.Caller.
	Caller = domain.Caller
)

// The roles (domain.Role).
const (
	RoleAdmin    = domain.RoleAdmin
	RoleReviewer = domain.RoleReviewer
	RoleOwner    = domain.RoleOwner
	RoleHost     = domain.RoleHost
)

// ParseRole is domain.ParseRole.
func ParseRole(s string) (Role, error) { return domain.ParseRole(s) }

// NamespaceMatch is domain.NamespaceMatch.
func NamespaceMatch(pattern, ns string) bool { return domain.NamespaceMatch(pattern, ns) }

// ValidNamespacePattern is domain.ValidNamespacePattern.
func ValidNamespacePattern(p string) error { return domain.ValidNamespacePattern(p) }

// WithCaller is domain.WithCaller.
func WithCaller(ctx context.Context, c *Caller) context.Context { return domain.WithCaller(ctx, c) }

// CallerFrom is domain.CallerFrom.
func CallerFrom(ctx context.Context) *Caller { return domain.CallerFrom(ctx) }

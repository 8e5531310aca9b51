package domain

import (
	"context"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/internal/ent"
)

// Role is what a principal may do.
type Role string

// The roles the README lists (API overview). Nothing else is allowed.
const (
	RoleAdmin    Role = "admin"
	RoleReviewer Role = "reviewer"
	RoleOwner    Role = "owner"
	RoleHost     Role = "host"
)

// ParseRole checks a role name.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleAdmin, RoleReviewer, RoleOwner, RoleHost:
		return r, nil
	}
	return "", Invalidf("role %q is not one of admin, reviewer, owner, host", s)
}

// Caller is the authenticated principal behind one request.
type Caller struct {
	Principal  string
	Role       Role
	Namespaces []string
	EnvLabels  []string
	TokenID    string
	RequestID  string
}

// CallerOf is principal p acting through a token (its public id) or a
// web session ("web").
func CallerOf(p *ent.Principal, via string) *Caller {
	return &Caller{Principal: p.Name, Role: Role(p.Role), Namespaces: p.Namespaces, EnvLabels: p.EnvLabels, TokenID: via}
}

// ReadsEverything reports whether the caller may read every server.
func (c *Caller) ReadsEverything() bool {
	return c.Role == RoleAdmin || c.Role == RoleReviewer
}

// MayDecide reports whether the caller may move versions between states.
func (c *Caller) MayDecide() bool {
	return c.Role == RoleAdmin || c.Role == RoleReviewer
}

// OwnsNamespace reports whether an owner's namespace patterns cover ns. An
// admin owns everything; reviewers and hosts own nothing.
func (c *Caller) OwnsNamespace(ns string) bool {
	if c.Role == RoleAdmin {
		return true
	}
	if c.Role != RoleOwner {
		return false
	}
	return slices.ContainsFunc(c.Namespaces, func(p string) bool { return NamespaceMatch(p, ns) })
}

// MayRead reports whether the caller may read a server in namespace ns.
func (c *Caller) MayRead(ns string) bool {
	return c.ReadsEverything() || c.OwnsNamespace(ns)
}

// NamespaceMatch reports whether a namespace pattern covers ns. A pattern is
// a namespace (exact match), "PREFIX.*" (any namespace below PREFIX, not
// PREFIX itself) or "*" (every namespace).
func NamespaceMatch(pattern, ns string) bool {
	if pattern == "*" {
		return true
	}
	if prefix, ok := strings.CutSuffix(pattern, ".*"); ok {
		return strings.HasPrefix(ns, prefix+".")
	}
	return pattern == ns
}

// ValidNamespacePattern checks a namespace pattern.
func ValidNamespacePattern(p string) error {
	if p == "*" {
		return nil
	}
	base := strings.TrimSuffix(p, ".*")
	if base == "" || strings.ContainsAny(base, "*/ ") || !namespaceRE.MatchString(base) {
		return Invalidf("namespace pattern %q: want a namespace like io.github.acme, a prefix like com.acme.*, or *", p)
	}
	return nil
}

type callerKey struct{}

// WithCaller returns a context carrying the caller.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the context's caller, or nil.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

package identity

import (
	"sync"
	"time"

	"github.com/mcpreg/mcpreg/internal/domain"
)

// AuthCacheTTL bounds how long a verified token is trusted without asking
// the database again: a token revoked through another replica keeps
// working there for at most this long (revoking through this replica
// takes effect at once).
const AuthCacheTTL = 3 * time.Second

// authCache remembers verified tokens by the hash of their secret, so
// hot read paths (discovery, /v0.1) do not query the database on every
// request. Only successful authentications are kept.
type authCache struct {
	mu sync.RWMutex
	m  map[string]authEntry
}

type authEntry struct {
	caller domain.Caller
	until  time.Time
}

func (a *authCache) get(hash string, now time.Time) (*domain.Caller, bool) {
	a.mu.RLock()
	e, ok := a.m[hash]
	a.mu.RUnlock()
	if !ok || !now.Before(e.until) {
		return nil, false
	}
	c := e.caller // a copy: callers set RequestID on theirs
	return &c, true
}

func (a *authCache) put(hash string, c domain.Caller, until time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil || len(a.m) > 10000 {
		a.m = map[string]authEntry{}
	}
	a.m[hash] = authEntry{caller: c, until: until}
}

// forget drops every cached token (after a revocation).
func (a *authCache) forget() {
	a.mu.Lock()
	a.m = nil
	a.mu.Unlock()
}

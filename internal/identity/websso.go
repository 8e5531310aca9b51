package identity

import (
	"context"
	"fmt"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/principal"
)

// SignInExternal opens a web session for principal name after someone
// else, named by via (an OIDC issuer, say), has authenticated it. Nothing
// is created here: the principal must already exist (mcpregd user add or
// mcpregd token create) with role reviewer or admin. The session is the
// one SignIn opens. Failures are not throttled: the identity provider
// vouched for the name, there is no secret to guess.
func (s *Service) SignInExternal(ctx context.Context, name, via, remote string) (*WebSession, error) {
	if name == "" || len(name) > 128 {
		return nil, domain.Deniedf("no web user %q: an admin creates it with mcpregd user add", name)
	}
	p, err := s.store.Client.Principal.Query().Where(principal.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		s.log.WarnContext(ctx, "web sign-in refused: unknown principal", "name", name, "via", via, "remote", remote)
		return nil, domain.Deniedf("no web user %s: an admin creates it with mcpregd user add", name)
	} else if err != nil {
		return nil, err
	}
	if p.Kind == principal.KindUpstream {
		s.log.WarnContext(ctx, "web sign-in refused: upstream principal", "name", name, "via", via, "remote", remote)
		return nil, domain.Deniedf("%s is an upstream registry's system principal: it never signs in", name)
	}
	if domain.Role(p.Role) != domain.RoleReviewer && domain.Role(p.Role) != domain.RoleAdmin {
		s.log.WarnContext(ctx, "web sign-in refused: role", "name", name, "role", p.Role, "via", via, "remote", remote)
		return nil, domain.Deniedf("%s has role %s: the web UI is for reviewers and admins", name, p.Role)
	}
	ws, err := s.openWebSession(ctx, p, remote)
	if err != nil {
		return nil, err
	}
	s.log.InfoContext(ctx, "web sign-in", "principal", p.Name, "via", via, "remote", remote)
	return ws, nil
}

// openWebSession stores a new session for p (password or single sign-on).
func (s *Service) openWebSession(ctx context.Context, p *ent.Principal, remote string) (*WebSession, error) {
	now := s.now()
	ws := &WebSession{Token: randomToken(), CSRF: randomToken(), ExpiresAt: now.Add(SessionTTL),
		Caller: domain.CallerOf(p, "web")}
	err := s.store.Client.WebSession.Create().SetTokenHash(hashSecret(ws.Token)).SetPrincipalID(p.ID).SetCsrfToken(ws.CSRF).
		SetRemote(remote).SetCreatedAt(now).SetExpiresAt(ws.ExpiresAt).SetLastSeenAt(now).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	return ws, nil
}

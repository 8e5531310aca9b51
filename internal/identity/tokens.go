package identity

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/principal"
	"github.com/mcpreg/mcpreg/internal/ent/token"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// TokenPrefix starts every token secret, so leaked tokens are easy to find.
const TokenPrefix = "mcpreg_"

// NewToken asks for a token for a principal. domain.Role, Namespaces and EnvLabels
// describe a new principal; for an existing one they must be empty or match.
type NewToken struct {
	Principal  string
	Role       domain.Role
	Namespaces []string
	EnvLabels  []string
	Name       string
	TTL        time.Duration
}

// IssuedToken is a created token with its secret, shown once.
type IssuedToken struct {
	Token  *mcpregv1.Token
	Secret string
}

// tokenProto shows a token (never its secret); t's principal edge is loaded.
func tokenProto(t *ent.Token) *mcpregv1.Token {
	out := &mcpregv1.Token{Id: t.PublicID, Name: t.Name, CreatedAt: timestamppb.New(t.CreatedAt),
		ExpiresAt: tsPtr(t.ExpiresAt), RevokedAt: tsPtr(t.RevokedAt), LastUsedAt: tsPtr(t.LastUsedAt)}
	if p := t.Edges.Principal; p != nil {
		out.Principal, out.Role = p.Name, string(p.Role)
	}
	return out
}

func tsPtr(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}

// mayManageTokens is the check every token operation makes: only admins
// issue, list and revoke tokens (the transport checks the same, first).
func mayManageTokens(c *domain.Caller, what string) error {
	if c == nil || c.Role != domain.RoleAdmin {
		return domain.Deniedf("only admins may %s tokens", what)
	}
	return nil
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func randomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// CreateToken creates a token, and its principal when new, with audit events
// in the same transaction.
func (s *Service) CreateToken(ctx context.Context, actor *domain.Caller, req NewToken) (*IssuedToken, error) {
	if err := mayManageTokens(actor, "issue"); err != nil {
		return nil, err
	}
	if err := validateNewToken(req); err != nil {
		return nil, err
	}
	secret := TokenPrefix + randomString(32)
	var out *ent.Token
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		p, err := s.principalFor(ctx, tx, actor, req)
		if err != nil {
			return err
		}
		c := tx.Token.Create().SetPublicID("tok_" + randomString(9)).SetName(req.Name).
			SetSecretHash(hashSecret(secret)).SetPrincipalID(p.ID).SetCreatedAt(s.now())
		if req.TTL > 0 {
			c.SetExpiresAt(s.now().Add(req.TTL))
		}
		if out, err = c.Save(ctx); err != nil {
			return fmt.Errorf("create token: %w", err)
		}
		out.Edges.Principal = p
		err = s.audit.Append(ctx, tx, domain.AuditRecord{Actor: actor.Principal, Action: "token.create",
			Subject: "token/" + out.PublicID, After: "active", RequestID: actor.RequestID,
			Details: fmt.Sprintf("principal=%s name=%q expires=%s", p.Name, req.Name, expiryText(out.ExpiresAt))})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &IssuedToken{Token: tokenProto(out), Secret: secret}, nil
}

func expiryText(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}

func validateNewToken(req NewToken) error {
	if !domain.ValidPrincipalName(req.Principal) {
		return domain.Invalidf("principal name %q: want 1-128 characters of letters, digits, . _ @ -", req.Principal)
	}
	if req.Role != "" {
		if _, err := domain.ParseRole(string(req.Role)); err != nil {
			return err
		}
	}
	for _, ns := range req.Namespaces {
		if err := domain.ValidNamespacePattern(ns); err != nil {
			return err
		}
	}
	for _, l := range req.EnvLabels {
		if !domain.ValidLabel(l) {
			return domain.Invalidf("environment label %q: want letters, digits, . _ - (1-63)", l)
		}
	}
	if req.TTL < 0 {
		return domain.Invalidf("token ttl must not be negative")
	}
	return nil
}

// principalFor returns the named principal, creating it (audited) when new.
func (s *Service) principalFor(ctx context.Context, tx *ent.Tx, actor *domain.Caller, req NewToken) (*ent.Principal, error) {
	p, err := tx.Principal.Query().Where(principal.Name(req.Principal)).Only(ctx)
	if err == nil && p.Kind == principal.KindUpstream {
		return nil, domain.Deniedf("principal %s is an upstream registry's system principal: it holds no tokens", p.Name)
	}
	if err == nil {
		return p, checkSameScope(p, req)
	}
	if !ent.IsNotFound(err) {
		return nil, fmt.Errorf("find principal: %w", err)
	}
	if req.Role == "" {
		return nil, domain.Invalidf("principal %q is new: a role is required", req.Principal)
	}
	p, err = tx.Principal.Create().SetName(req.Principal).SetRole(principal.Role(req.Role)).
		SetNamespaces(req.Namespaces).SetEnvLabels(req.EnvLabels).SetCreatedAt(s.now()).Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("create principal: %w", err)
	}
	err = s.audit.Append(ctx, tx, domain.AuditRecord{Actor: actor.Principal, Action: "principal.create",
		Subject: "principal/" + p.Name, After: string(req.Role), RequestID: actor.RequestID,
		Details: fmt.Sprintf("namespaces=%v env=%v", req.Namespaces, req.EnvLabels)})
	return p, err
}

func checkSameScope(p *ent.Principal, req NewToken) error {
	if req.Role != "" && string(req.Role) != string(p.Role) {
		return fmt.Errorf("%w: principal %q exists with role %s, not %s", domain.ErrConflict, p.Name, p.Role, req.Role)
	}
	if len(req.Namespaces) > 0 && !sameSet(req.Namespaces, p.Namespaces) {
		return fmt.Errorf("%w: principal %q exists with namespaces %v", domain.ErrConflict, p.Name, p.Namespaces)
	}
	if len(req.EnvLabels) > 0 && !sameSet(req.EnvLabels, p.EnvLabels) {
		return fmt.Errorf("%w: principal %q exists with environment labels %v", domain.ErrConflict, p.Name, p.EnvLabels)
	}
	return nil
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// ListTokens lists tokens (never their secrets), optionally of one
// principal.
func (s *Service) ListTokens(ctx context.Context, actor *domain.Caller, principalName string) ([]*mcpregv1.Token, error) {
	if err := mayManageTokens(actor, "list"); err != nil {
		return nil, err
	}
	q := s.store.Client.Token.Query().WithPrincipal().Order(ent.Asc(token.FieldID))
	if principalName != "" {
		q = q.Where(token.HasPrincipalWith(principal.Name(principalName)))
	}
	ts, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*mcpregv1.Token, len(ts))
	for i, t := range ts {
		out[i] = tokenProto(t)
	}
	return out, nil
}

// RevokeToken revokes a token by public id, audited.
func (s *Service) RevokeToken(ctx context.Context, actor *domain.Caller, publicID, reason string) (*mcpregv1.Token, error) {
	if err := mayManageTokens(actor, "revoke"); err != nil {
		return nil, err
	}
	var out *ent.Token
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		t, err := tx.Token.Query().Where(token.PublicID(publicID)).WithPrincipal().Only(ctx)
		if ent.IsNotFound(err) {
			return domain.NotFoundf("token %q", publicID)
		} else if err != nil {
			return err
		}
		if t.RevokedAt != nil {
			return fmt.Errorf("%w: token %s was already revoked at %s", domain.ErrFailedPrecondition, publicID, t.RevokedAt.UTC().Format(time.RFC3339))
		}
		tx.OnCommit(s.forgetTokensOnCommit)
		if out, err = t.Update().SetRevokedAt(s.now()).Save(ctx); err != nil {
			return err
		}
		out.Edges.Principal = t.Edges.Principal
		err = s.audit.Append(ctx, tx, domain.AuditRecord{Actor: actor.Principal, Action: "token.revoke",
			Subject: "token/" + publicID, Before: "active", After: "revoked", Reason: reason, RequestID: actor.RequestID,
			Details: "principal=" + t.Edges.Principal.Name})
		return err
	})
	if err != nil {
		return nil, err
	}
	return tokenProto(out), nil
}

// lastUsedGranularity limits last_used_at writes to one per token per minute.
const lastUsedGranularity = time.Minute

// Authenticate resolves a bearer secret to its caller. Unknown, expired and
// revoked tokens all fail with domain.ErrUnauthenticated and a reason.
func (s *Service) Authenticate(ctx context.Context, secret string) (*domain.Caller, error) {
	if !strings.HasPrefix(secret, TokenPrefix) || len(secret) > 128 {
		return nil, fmt.Errorf("%w: malformed token (want %s...)", domain.ErrUnauthenticated, TokenPrefix)
	}
	hash := hashSecret(secret)
	now := s.now()
	if c, ok := s.auth.get(hash, now); ok {
		return c, nil
	}
	t, err := s.store.Client.Token.Query().Where(token.SecretHash(hash)).WithPrincipal().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, fmt.Errorf("%w: unknown token", domain.ErrUnauthenticated)
	} else if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	switch {
	case t.RevokedAt != nil:
		return nil, fmt.Errorf("%w: token %s was revoked", domain.ErrUnauthenticated, t.PublicID)
	case t.ExpiresAt != nil && !now.Before(*t.ExpiresAt):
		return nil, fmt.Errorf("%w: token %s expired at %s", domain.ErrUnauthenticated, t.PublicID, t.ExpiresAt.UTC().Format(time.RFC3339))
	case t.Edges.Principal.Kind == principal.KindUpstream:
		// Never issued (principalFor refuses); a row put there by other
		// means does not authenticate either.
		return nil, fmt.Errorf("%w: token %s belongs to an upstream registry's system principal", domain.ErrUnauthenticated, t.PublicID)
	}
	s.touch(ctx, t, now)
	p := t.Edges.Principal
	c := *domain.CallerOf(p, t.PublicID)
	until := now.Add(AuthCacheTTL)
	if t.ExpiresAt != nil && t.ExpiresAt.Before(until) {
		until = *t.ExpiresAt
	}
	s.auth.put(hash, c, until)
	return &c, nil
}

func (s *Service) touch(ctx context.Context, t *ent.Token, now time.Time) {
	if t.LastUsedAt != nil && now.Sub(*t.LastUsedAt) < lastUsedGranularity {
		return
	}
	if err := s.store.Client.Token.UpdateOneID(t.ID).SetLastUsedAt(now).Exec(ctx); err != nil {
		s.log.WarnContext(ctx, "record token use", "token", t.PublicID, "err", err)
	}
}

// forgetTokensOnCommit empties the token cache once a revocation commits.
func (s *Service) forgetTokensOnCommit(next ent.Committer) ent.Committer {
	return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
		err := next.Commit(ctx, tx)
		s.auth.forget()
		return err
	})
}

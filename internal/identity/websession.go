package identity

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/alexedwards/argon2id"

	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/principal"
	"github.com/mcpreg/mcpreg/internal/ent/websession"
)

// SessionTTL is how long a web session lasts.
const SessionTTL = 12 * time.Hour

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 12

// WebSession is a signed-in browser session.
type WebSession struct {
	// Token is the cookie value (256 random bits); only its hash is stored.
	Token string
	// CSRF is the session's anti-forgery token, embedded in every form.
	CSRF      string
	Caller    *domain.Caller
	ExpiresAt time.Time
}

// passwordParams are argon2id's RFC 9106 second recommended parameters
// (64 MiB, 3 passes), with 2 lanes for the machines mcpregd runs on.
var passwordParams = &argon2id.Params{Memory: 64 * 1024, Iterations: 3, Parallelism: 2, SaltLength: 16, KeyLength: 32}

// SetPassword gives principal name a web sign-in password, creating it
// with role if it does not exist (mcpregd user add). Only reviewers and
// admins sign in to the web UI; an existing principal keeps its role, and
// asking for another is a conflict. Audited; the password is never logged.
func (s *Service) SetPassword(ctx context.Context, by *domain.Caller, name string, role domain.Role, password string) error {
	if role != domain.RoleReviewer && role != domain.RoleAdmin {
		return domain.Invalidf("role %q: web users are reviewers or admins", role)
	}
	if !domain.ValidPrincipalName(name) {
		return domain.Invalidf("principal name %q: want 1-128 letters, digits and . _ @ -", name)
	}
	if len([]rune(password)) < MinPasswordLength {
		return domain.Invalidf("password: want at least %d characters", MinPasswordLength)
	}
	if len(password) > 1024 {
		return domain.Invalidf("password: longer than 1024 bytes")
	}
	hash, err := argon2id.CreateHash(password, passwordParams)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	return s.store.WithTx(ctx, func(tx *ent.Tx) error {
		p, err := tx.Principal.Query().Where(principal.Name(name)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			p, err = tx.Principal.Create().SetName(name).SetRole(principal.Role(role)).SetPasswordHash(hash).SetCreatedAt(s.now()).Save(ctx)
			if err != nil {
				return err
			}
			if err := s.audit.Append(ctx, tx, domain.AuditRecord{Actor: by.Principal, Action: "principal.create", Subject: "principal/" + name,
				After: string(role), RequestID: by.RequestID, Details: "web sign-in enabled"}); err != nil {
				return err
			}
		case err != nil:
			return err
		case p.Kind == principal.KindUpstream:
			return domain.Deniedf("%s is an upstream registry's system principal: it never signs in", name)
		case domain.Role(p.Role) != role:
			return fmt.Errorf("%w: principal %q exists with role %s, not %s", domain.ErrConflict, name, p.Role, role)
		default:
			if err := tx.Principal.UpdateOne(p).SetPasswordHash(hash).Exec(ctx); err != nil {
				return err
			}
		}
		// A new password ends the principal's sessions.
		if _, err := tx.WebSession.Delete().Where(websession.PrincipalID(p.ID)).Exec(ctx); err != nil {
			return err
		}
		err = s.audit.Append(ctx, tx, domain.AuditRecord{Actor: by.Principal, Action: "principal.password_set", Subject: "principal/" + name,
			RequestID: by.RequestID})
		return err
	})
}

// dummyHash is compared against when the name is unknown, so a wrong name
// costs as much time as a wrong password.
var dummyHash = func() string {
	h, _ := argon2id.CreateHash("mcpreg-no-such-user", passwordParams)
	return h
}()

// SignIn checks a name and password and opens a web session. Failures say
// only "wrong name or password"; after a few in a row for one name or one
// address, attempts are refused for a while (domain.ErrThrottled). Every attempt
// first gets a place among the password hashes (a bounded queue: beyond it
// the answer is a RetryError), then spends an attempt of its name and its
// address in one transaction, and only then hashes; a successful sign-in
// gets its attempt back.
func (s *Service) SignIn(ctx context.Context, name, password, remote string) (*WebSession, error) {
	if err := s.hashes.admit(); err != nil {
		return nil, err
	}
	defer s.hashes.leave()
	keys := throttleKeys(name, remote)
	allowed, err := s.takeAttempt(ctx, s.now(), keys)
	if err != nil {
		return nil, err
	}
	if !allowed {
		return nil, fmt.Errorf("%w: too many failed sign-ins for this name or address; wait a minute", domain.ErrThrottled)
	}
	p, err := s.store.Client.Principal.Query().Where(principal.Name(name)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	hash := dummyHash
	if p != nil && p.PasswordHash != "" {
		hash = p.PasswordHash
	}
	match, err := s.hashes.compare(ctx, password, hash)
	if err != nil {
		return nil, fmt.Errorf("check password: %w", err)
	}
	if !match || p == nil || p.PasswordHash == "" {
		s.dropStaleThrottles(ctx)
		s.log.WarnContext(ctx, "web sign-in failed", typedName(name, p), "remote", remote)
		return nil, fmt.Errorf("%w: wrong name or password", domain.ErrUnauthenticated)
	}
	if err := s.giveBackAttempt(ctx, keys); err != nil {
		return nil, err
	}
	if domain.Role(p.Role) != domain.RoleReviewer && domain.Role(p.Role) != domain.RoleAdmin {
		return nil, domain.Deniedf("role %s does not use the web UI", p.Role)
	}
	ws, err := s.openWebSession(ctx, p, remote)
	if err != nil {
		return nil, err
	}
	s.log.InfoContext(ctx, "web sign-in", "principal", p.Name, "remote", remote)
	return ws, nil
}

// Session resolves a session cookie; unknown and expired sessions fail
// with domain.ErrUnauthenticated.
func (s *Service) Session(ctx context.Context, token string) (*WebSession, error) {
	if token == "" || len(token) > 128 {
		return nil, fmt.Errorf("%w: no session", domain.ErrUnauthenticated)
	}
	now := s.now()
	ws, err := s.store.Client.WebSession.Query().Where(websession.TokenHash(hashSecret(token))).WithPrincipal().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, fmt.Errorf("%w: the session ended; sign in again", domain.ErrUnauthenticated)
	} else if err != nil {
		return nil, err
	}
	if !now.Before(ws.ExpiresAt) {
		return nil, fmt.Errorf("%w: the session expired; sign in again", domain.ErrUnauthenticated)
	}
	if now.Sub(ws.LastSeenAt) > lastUsedGranularity {
		_ = s.store.Client.WebSession.UpdateOne(ws).SetLastSeenAt(now).Exec(ctx)
	}
	p := ws.Edges.Principal
	return &WebSession{Token: token, CSRF: ws.CsrfToken, ExpiresAt: ws.ExpiresAt,
		Caller: domain.CallerOf(p, "web")}, nil
}

// SignOut ends a session (and any expired ones).
func (s *Service) SignOut(ctx context.Context, token string) error {
	_, err := s.store.Client.WebSession.Delete().
		Where(websession.Or(websession.TokenHash(hashSecret(token)), websession.ExpiresAtLT(s.now()))).Exec(ctx)
	return err
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// typedName is how a failed sign-in's name is logged: the principal when it
// names one, else only a short hash, since people type passwords into the
// name field and logs travel further than the database.
func typedName(name string, p *ent.Principal) slog.Attr {
	if p != nil {
		return slog.String("principal", p.Name)
	}
	sum := sha256.Sum256([]byte(name))
	return slog.String("name_sha256", hex.EncodeToString(sum[:6]))
}

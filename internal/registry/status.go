package registry

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/server"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Lifecycle statuses a version carries beside its review state, as the
// official registry has them. StatusDeleted is never stored: it is how
// revoked (and, on request, quarantined) versions are listed.
const (
	StatusActive     = "active"
	StatusDeprecated = "deprecated"
	StatusDeleted    = "deleted"
)

// maxStatusMessage caps a status message.
const maxStatusMessage = 1000

// SetStatus deprecates (status deprecated, with a message saying why or
// what to use instead) or undeprecates (status active) one version of a
// server, or every version when ver is empty. Owners in their namespaces,
// reviewers and admins; audited per version. A deprecated version stays
// approved and resolvable: hosts see the status and the message. A
// version already in that status with that message is left alone.
func (s *Review) SetStatus(ctx context.Context, c *Caller, name, ver, status, message string) ([]*mcpregv1.Version, error) {
	switch status {
	case StatusActive, StatusDeprecated:
	default:
		return nil, invalidf("status %q: want active or deprecated (deleted is revoking the version)", status)
	}
	message = strings.TrimSpace(message)
	if len(message) > maxStatusMessage || !utf8.ValidString(message) || strings.ContainsRune(message, 0) {
		return nil, invalidf("status message: want at most %d bytes of UTF-8 text", maxStatusMessage)
	}
	if status == StatusActive && message != "" {
		return nil, invalidf("status message: only a deprecation carries one")
	}
	if !serverNameRE.MatchString(name) {
		return nil, invalidf("server name %q does not match ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", name)
	}
	srv, err := s.store.Client.Server.Query().Where(server.Name(name)).Only(ctx)
	if ent.IsNotFound(err) || (err == nil && !c.MayRead(srv.Namespace)) {
		return nil, notFoundf("server %s", name)
	} else if err != nil {
		return nil, err
	}
	if !c.MayDecide() && !c.OwnsNamespace(srv.Namespace) {
		return nil, deniedf("%s may not change the status of %s", c.Principal, name)
	}
	var ids []int
	err = s.store.WithTx(ctx, func(tx *ent.Tx) error {
		q := tx.Version.Query().Where(version.ServerID(srv.ID))
		if ver != "" {
			q = q.Where(version.Version(ver))
		}
		if s.store.RowLocks() {
			q = q.ForUpdate()
		}
		vs, err := q.Order(ent.Asc(version.FieldID)).All(ctx)
		if err != nil {
			return err
		}
		if len(vs) == 0 {
			return notFoundf("server %s version %s", name, ver)
		}
		action := "version.deprecate"
		if status == StatusActive {
			action = "version.undeprecate"
		}
		now := s.now()
		for _, v := range vs {
			ids = append(ids, v.ID)
			if string(v.Status) == status && v.StatusMessage == message {
				continue
			}
			err := tx.Version.UpdateOne(v).SetStatus(version.Status(status)).SetStatusMessage(message).SetStatusChangedAt(now).Exec(ctx)
			if err != nil {
				return err
			}
			err = s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: action, Subject: subjectOf(name, v.Version),
				Before: string(v.Status), After: status, Reason: message, RequestID: c.RequestID})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*mcpregv1.Version, 0, len(ids))
	for _, id := range ids {
		v, err := s.versionByID(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// statusOf is how a version is listed: deleted when revoked or
// quarantined, else its stored status.
func statusOf(v *ent.Version) string {
	if v.State == version.StateRevoked || v.State == version.StateQuarantined {
		return StatusDeleted
	}
	return string(v.Status)
}

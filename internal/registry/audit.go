package registry

import (
	"context"
	"fmt"

	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/domain"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/audithead"
)

// auditHeadID is the primary key of the single chain-tip row.
const auditHeadID = 1

// genesisHash is the prev_hash of the first event.
const genesisHash = auditchain.Genesis

// AuditRecord is domain.AuditRecord.
type AuditRecord = domain.AuditRecord

func entryOf(ev *ent.AuditEvent) auditchain.Entry {
	return auditchain.Entry{
		Seq: ev.Seq, OccurredAt: auditchain.FormatTime(ev.OccurredAt), Actor: ev.Actor, Action: ev.Action,
		Subject: ev.Subject, Before: ev.Before, After: ev.After, Reason: ev.Reason,
		RequestID: ev.RequestID, Details: ev.Details,
	}
}

// ensureAuditHead creates the chain-tip row once and notes its sequence
// (where the change feed starts). Plain SQL, valid on both
// dialects: ent cannot set the id of an auto-increment table.
func (s *core) ensureAuditHead(ctx context.Context) error {
	_, err := s.store.Client.ExecContext(ctx, fmt.Sprintf(
		"INSERT INTO audit_heads (id, seq, hash) VALUES (%d, 0, '%s') ON CONFLICT (id) DO NOTHING", auditHeadID, genesisHash))
	if err != nil {
		return fmt.Errorf("audit head: %w", err)
	}
	head, err := s.store.Client.AuditHead.Query().Where(audithead.ID(auditHeadID)).Only(ctx)
	if err != nil {
		return fmt.Errorf("audit head: %w", err)
	}
	s.feedStart = head.Seq
	return nil
}

// AuditWriter is the registry's audit chain for the other services: they
// append their events through it, inside their own transactions.
func (s *Audit) AuditWriter() AuditAppender { return auditAppender{s.core} }

// AuditAppender appends one audit event inside a transaction.
type AuditAppender interface {
	Append(ctx context.Context, tx *ent.Tx, r AuditRecord) error
}

type auditAppender struct{ s *core }

func (a auditAppender) Append(ctx context.Context, tx *ent.Tx, r AuditRecord) error {
	return a.s.appendAudit(ctx, tx, r)
}

// appendAudit adds one event inside tx. Locking the head row serialises
// appenders (PostgreSQL: FOR UPDATE; SQLite: the immediate write lock).
func (s *core) appendAudit(ctx context.Context, tx *ent.Tx, r AuditRecord) error {
	q := tx.AuditHead.Query().Where(audithead.ID(auditHeadID))
	if s.store.RowLocks() {
		q = q.ForUpdate()
	}
	head, err := q.Only(ctx)
	if err != nil {
		return fmt.Errorf("audit head: %w", err)
	}
	at := s.now()
	e := auditchain.Entry{Seq: head.Seq + 1, OccurredAt: auditchain.FormatTime(at), Actor: r.Actor, Action: r.Action,
		Subject: r.Subject, Before: r.Before, After: r.After, Reason: r.Reason, RequestID: r.RequestID, Details: r.Details}
	hash := auditchain.Hash(head.Hash, e)
	err = tx.AuditEvent.Create().SetSeq(e.Seq).SetOccurredAt(at).SetActor(r.Actor).SetAction(r.Action).
		SetSubject(r.Subject).SetBefore(r.Before).SetAfter(r.After).SetReason(r.Reason).
		SetRequestID(r.RequestID).SetDetails(r.Details).SetPrevHash(head.Hash).SetHash(hash).Exec(ctx)
	if err != nil {
		return fmt.Errorf("audit append: %w", err)
	}
	if err := tx.AuditHead.UpdateOneID(auditHeadID).SetSeq(e.Seq).SetHash(hash).Exec(ctx); err != nil {
		return fmt.Errorf("audit head update: %w", err)
	}
	if !discoveryNeutral[r.Action] {
		tx.OnCommit(func(next ent.Committer) ent.Committer {
			return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
				err := next.Commit(ctx, tx)
				if err == nil {
					s.applied.add(e.Seq)
					s.changed(r.Action)
				}
				return err
			})
		})
	}
	return nil
}

// discoveryNeutral are the audited actions that never change what
// discovery serves (no approved version gains or loses anything). Any
// other action, including ones added later, rebuilds the index.
var discoveryNeutral = map[string]bool{"version.submit": true, "version.reject": true, "token.create": true,
	"token.revoke": true, "principal.create": true, "principal.password_set": true, "policy.update": true, "drift.decline": true, "version.first_read": true}

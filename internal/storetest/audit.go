package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/auditevent"
	"github.com/mcpreg/mcpreg/internal/store"
)

// RewriteAuditEvent is the attack signed checkpoints exist for, as someone
// with write access to the database would run it: event seq gets a new
// reason, every hash from it on is recomputed and the head row moved along,
// so that the chain is internally consistent again.
func RewriteAuditEvent(t testing.TB, st *store.Store, seq int64, reason string) {
	t.Helper()
	ctx := context.Background()
	evs, err := st.Client.AuditEvent.Query().Order(ent.Asc(auditevent.FieldSeq)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prev := auditchain.Genesis
	for _, ev := range evs {
		if ev.Seq == seq {
			ev.Reason = reason
		}
		if ev.Seq >= seq {
			e := auditchain.Entry{Seq: ev.Seq, OccurredAt: auditchain.FormatTime(ev.OccurredAt), Actor: ev.Actor, Action: ev.Action,
				Subject: ev.Subject, Before: ev.Before, After: ev.After, Reason: ev.Reason, RequestID: ev.RequestID, Details: ev.Details}
			ev.PrevHash, ev.Hash = prev, auditchain.Hash(prev, e)
			exec(t, st, fmt.Sprintf("UPDATE audit_events SET reason = %s, prev_hash = '%s', hash = '%s' WHERE seq = %d",
				quote(ev.Reason), ev.PrevHash, ev.Hash, ev.Seq))
		}
		prev = ev.Hash
	}
	exec(t, st, fmt.Sprintf("UPDATE audit_heads SET hash = '%s'", prev))
}

// TruncateAudit deletes every audit event after keep and moves the head
// row back to event keep, so that the shorter chain is consistent.
func TruncateAudit(t testing.TB, st *store.Store, keep int64) {
	t.Helper()
	last, err := st.Client.AuditEvent.Query().Where(auditevent.Seq(keep)).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	exec(t, st, fmt.Sprintf("DELETE FROM audit_events WHERE seq > %d", keep))
	exec(t, st, fmt.Sprintf("UPDATE audit_heads SET seq = %d, hash = '%s'", keep, last.Hash))
}

func exec(t testing.TB, st *store.Store, q string) {
	t.Helper()
	if _, err := st.DB.ExecContext(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

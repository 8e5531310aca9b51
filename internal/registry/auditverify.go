package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/auditevent"
	"github.com/mcpreg/mcpreg/internal/ent/audithead"
)

// ChainReport is the result of walking the audit chain.
type ChainReport struct {
	OK             bool
	Events         int64
	HeadHash       string
	FirstBrokenSeq int64
	Problem        string
	// Cause is the failure as an error wrapping an auditchain sentinel
	// (ErrBroken, ErrRewritten, ErrTruncated); nil when OK.
	Cause error
}

const verifyBatch = 1000

// VerifyAuditChain walks every event in sequence order, recomputing each
// hash and link, and names the first broken one.
func (s *Audit) VerifyAuditChain(ctx context.Context) (*ChainReport, error) {
	return s.VerifyAuditChainAgainst(ctx, nil)
}

// VerifyAuditChainAgainst is VerifyAuditChain that, given a checkpoint
// (verified by the caller: auditchain.Open), also requires the recomputed
// chain to reach the checkpoint's length with its head hash there. That
// catches what the chain alone cannot: an early event changed and every
// later hash recomputed, or the log cut short, head row included.
func (s *Audit) VerifyAuditChainAgainst(ctx context.Context, cp *auditchain.Checkpoint) (*ChainReport, error) {
	rep := &ChainReport{OK: true}
	chain := auditchain.NewChain(cp)
	err := s.walkAudit(ctx, 0, func(ev *ent.AuditEvent) error { return chain.Add(entryOf(ev), ev.PrevHash, ev.Hash) })
	if err == nil {
		err = chain.Close()
	}
	rep.Events, rep.HeadHash = chain.Len(), chain.Head()
	var br *auditchain.BreakError
	switch {
	case errors.As(err, &br):
		return broken(rep, br.Seq, br.Problem, err), nil
	case errors.Is(err, auditchain.ErrRewritten):
		return broken(rep, cp.Length, err.Error(), err), nil
	case errors.Is(err, auditchain.ErrTruncated):
		return broken(rep, chain.Len()+1, err.Error(), err), nil
	case err != nil:
		return nil, err
	}
	return s.checkHead(ctx, rep, chain.Len(), chain.Head())
}

// walkAudit calls fn with every event after sequence after, in order, read
// in batches; it stops at fn's first error.
func (s *Audit) walkAudit(ctx context.Context, after int64, fn func(*ent.AuditEvent) error) error {
	for {
		batch, err := s.store.Client.AuditEvent.Query().Where(auditevent.SeqGT(after)).
			Order(ent.Asc(auditevent.FieldSeq)).Limit(verifyBatch).All(ctx)
		if err != nil {
			return fmt.Errorf("audit walk: %w", err)
		}
		for _, ev := range batch {
			if err := fn(ev); err != nil {
				return err
			}
			after = ev.Seq
		}
		if len(batch) < verifyBatch {
			return nil
		}
	}
}

func broken(rep *ChainReport, seq int64, problem string, cause error) *ChainReport {
	rep.OK, rep.FirstBrokenSeq, rep.Problem, rep.Cause = false, seq, problem, cause
	return rep
}

// checkHead compares the chain's end with the head row, which catches
// deleted events at the end of the chain.
func (s *Audit) checkHead(ctx context.Context, rep *ChainReport, last int64, prev string) (*ChainReport, error) {
	head, err := s.store.Client.AuditHead.Query().Where(audithead.ID(auditHeadID)).Only(ctx)
	if ent.IsNotFound(err) {
		if last == 0 {
			return rep, nil
		}
		problem := "audit head row is missing"
		return broken(rep, last, problem, &auditchain.BreakError{Seq: last, Problem: problem}), nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit verify head: %w", err)
	}
	if head.Seq != last || head.Hash != prev {
		problem := fmt.Sprintf("chain ends at event %d but the head records event %d (events were removed)", last, head.Seq)
		return broken(rep, last+1, problem, &auditchain.BreakError{Seq: last + 1, Problem: problem}), nil
	}
	return rep, nil
}

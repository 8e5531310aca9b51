package registry

import (
	"context"
	"fmt"

	"github.com/mcpreg/mcpreg/ent"
	"github.com/mcpreg/mcpreg/ent/auditevent"
	"github.com/mcpreg/mcpreg/ent/audithead"
)

// ChainReport is the result of walking the audit chain.
type ChainReport struct {
	OK             bool
	Events         int64
	HeadHash       string
	FirstBrokenSeq int64
	Problem        string
}

const verifyBatch = 1000

// VerifyAuditChain walks every event in sequence order, recomputing each
// hash and link, and names the first broken one.
func (s *Service) VerifyAuditChain(ctx context.Context) (*ChainReport, error) {
	rep := &ChainReport{OK: true}
	prev, last := genesisHash, int64(0)
	for {
		batch, err := s.store.Client.AuditEvent.Query().Where(auditevent.SeqGT(last)).
			Order(ent.Asc(auditevent.FieldSeq)).Limit(verifyBatch).All(ctx)
		if err != nil {
			return nil, fmt.Errorf("audit verify: %w", err)
		}
		for _, ev := range batch {
			if problem := checkLink(ev, last, prev); problem != "" {
				return broken(rep, ev.Seq, problem), nil
			}
			prev, last = ev.Hash, ev.Seq
			rep.Events++
		}
		if len(batch) < verifyBatch {
			break
		}
	}
	rep.HeadHash = prev
	return s.checkHead(ctx, rep, last, prev)
}

func checkLink(ev *ent.AuditEvent, last int64, prev string) string {
	switch {
	case ev.Seq != last+1:
		return fmt.Sprintf("sequence gap: event %d follows %d", ev.Seq, last)
	case ev.PrevHash != prev:
		return fmt.Sprintf("prev_hash %s does not match the hash %s of event %d", ev.PrevHash, prev, last)
	case chainHash(prev, entryOf(ev)) != ev.Hash:
		return "stored hash does not match the event's contents (the row was altered)"
	}
	return ""
}

func broken(rep *ChainReport, seq int64, problem string) *ChainReport {
	rep.OK, rep.FirstBrokenSeq, rep.Problem = false, seq, problem
	return rep
}

// checkHead compares the chain's end with the head row, which catches
// deleted events at the end of the chain.
func (s *Service) checkHead(ctx context.Context, rep *ChainReport, last int64, prev string) (*ChainReport, error) {
	head, err := s.store.Client.AuditHead.Query().Where(audithead.ID(auditHeadID)).Only(ctx)
	if ent.IsNotFound(err) {
		if last == 0 {
			return rep, nil
		}
		return broken(rep, last, "audit head row is missing"), nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit verify head: %w", err)
	}
	if head.Seq != last || head.Hash != prev {
		return broken(rep, last+1, fmt.Sprintf("chain ends at event %d but the head records event %d (events were removed)", last, head.Seq)), nil
	}
	return rep, nil
}

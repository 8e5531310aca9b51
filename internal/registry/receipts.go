package registry

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/receipt"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Receipt limits.
const (
	// MaxReceiptBatch is the most receipts one PostReceipts may carry.
	MaxReceiptBatch = 500
	// DefaultReceiptRetention is how long receipts are kept.
	DefaultReceiptRetention = 90 * 24 * time.Hour
	maxReceiptFindings      = 50
	maxReceiptText          = 2000
)

// Receipts stores what runtime gates recorded for the calls they relayed,
// and lists it for reviewers. A receipt is evidence of use: it changes no
// version's state.
type Receipts struct {
	*core
	// discovery says which versions a host may resolve.
	discovery *Discovery
	// sweep paces deleting receipts past their retention.
	sweep atomic.Int64
}

func newReceipts(c *core, disc *Discovery) *Receipts {
	return &Receipts{core: c, discovery: disc}
}

var (
	receiptIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	digestRE    = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	outcomes    = []string{string(gate.OutcomeCommitted), string(gate.OutcomeFailed), string(gate.OutcomeUncertain), string(gate.OutcomeRejected)}
)

// Post stores a batch of receipts from a host: each must be well formed
// and name a version the caller may resolve (else it is rejected, with
// the reason, and the rest are stored); a receipt id already stored is a
// duplicate, not an error.
func (s *Receipts) Post(ctx context.Context, c *Caller, in []*mcpregv1.CallReceipt) (*mcpregv1.PostReceiptsResponse, error) {
	if c.Role != RoleHost && c.Role != RoleAdmin {
		return nil, deniedf("role %s does not post receipts (hosts do)", c.Role)
	}
	if len(in) == 0 || len(in) > MaxReceiptBatch {
		return nil, invalidf("receipts: %d in the batch, want 1 to %d", len(in), MaxReceiptBatch)
	}
	out := &mcpregv1.PostReceiptsResponse{}
	idx, err := s.discovery.discoveryIndex(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var ok []*ent.ReceiptCreate
	seen := map[string]bool{}
	for _, r := range in {
		why := checkReceipt(r, now)
		if why == "" && !s.resolvable(idx, c, r.GetServer(), r.GetVersion()) {
			why = fmt.Sprintf("%s@%s is not a version this token may resolve", r.GetServer(), r.GetVersion())
		}
		if why == "" && seen[r.GetReceiptId()] {
			out.Duplicates++
			continue
		}
		if why != "" {
			out.Rejected = append(out.Rejected, &mcpregv1.RejectedReceipt{ReceiptId: r.GetReceiptId(), Reason: why})
			continue
		}
		seen[r.GetReceiptId()] = true
		ok = append(ok, s.receiptCreate(c, r, now))
	}
	stored, dup, err := s.insert(ctx, ok)
	if err != nil {
		return nil, err
	}
	out.Stored, out.Duplicates = int32(stored), out.Duplicates+int32(dup)
	s.pruneReceipts(ctx, now)
	return out, nil
}

// resolvable reports whether the caller may resolve name@version: an
// approved version its environment may see (admins see every one).
func (s *Receipts) resolvable(idx *discoveryIndex, c *Caller, name, version string) bool {
	ds := idx.server(name)
	return ds != nil && ds.pick(version, c.EnvLabels, c.Role != RoleHost) != nil
}

// checkReceipt says what is wrong with a posted receipt ("" when
// nothing).
func checkReceipt(r *mcpregv1.CallReceipt, now time.Time) string {
	switch {
	case !receiptIDRE.MatchString(r.GetReceiptId()):
		return fmt.Sprintf("receipt_id %q: want 1 to 64 letters, digits, '_' or '-'", r.GetReceiptId())
	case !serverNameRE.MatchString(r.GetServer()):
		return fmt.Sprintf("server %q is not a server name", r.GetServer())
	case r.GetVersion() == "" || len(r.GetVersion()) > 255:
		return "version: want 1 to 255 characters"
	case r.GetTool() == "" && r.GetOutcome() != string(gate.OutcomeRejected), len(r.GetTool()) > 255:
		return "tool: want 1 to 255 characters"
	case !slices.Contains(outcomes, r.GetOutcome()):
		return fmt.Sprintf("outcome %q: want committed, failed, uncertain or rejected", r.GetOutcome())
	case !digestRE.MatchString(r.GetArgumentsDigest()) && r.GetOutcome() != string(gate.OutcomeRejected):
		return "arguments_digest: want sha256: and 64 hex digits"
	case r.GetToolHash() != "" && !digestRE.MatchString(r.GetToolHash()):
		return "tool_hash: want sha256: and 64 hex digits"
	case r.GetResultDigest() != "" && !digestRE.MatchString(r.GetResultDigest()):
		return "result_digest: want sha256: and 64 hex digits"
	case len(r.GetIdempotencyKey()) > 255, len(r.GetReason()) > maxReceiptText:
		return fmt.Sprintf("idempotency_key or reason too long (at most 255 and %d characters)", maxReceiptText)
	case len(r.GetFindings()) > maxReceiptFindings:
		return fmt.Sprintf("findings: %d, at most %d", len(r.GetFindings()), maxReceiptFindings)
	case !r.GetStartedAt().IsValid() || !r.GetEndedAt().IsValid():
		return "started_at and ended_at are required"
	case r.GetEndedAt().AsTime().Before(r.GetStartedAt().AsTime()):
		return "ended_at is before started_at"
	case r.GetEndedAt().AsTime().After(now.Add(time.Hour)):
		return "ended_at is in the future"
	}
	for _, f := range r.GetFindings() {
		if len(f) > maxReceiptText {
			return fmt.Sprintf("a finding longer than %d characters", maxReceiptText)
		}
	}
	return ""
}

func (s *Receipts) receiptCreate(c *Caller, r *mcpregv1.CallReceipt, now time.Time) *ent.ReceiptCreate {
	return s.store.Client.Receipt.Create().SetReceiptID(r.GetReceiptId()).SetPrincipal(c.Principal).
		SetServerName(r.GetServer()).SetVersion(r.GetVersion()).SetPinRevision(int(r.GetPinRevision())).
		SetTool(r.GetTool()).SetToolHash(r.GetToolHash()).SetArgumentsDigest(r.GetArgumentsDigest()).
		SetIdempotencyKey(r.GetIdempotencyKey()).SetStartedAt(r.GetStartedAt().AsTime()).
		SetEndedAt(r.GetEndedAt().AsTime()).SetOutcome(r.GetOutcome()).SetReason(r.GetReason()).
		SetResultDigest(r.GetResultDigest()).SetFindings(r.GetFindings()).SetReceivedAt(now)
}

// insert creates the receipts not stored yet, in one statement; when
// another request stored one of them meanwhile (the unique receipt id
// refuses the statement), it falls back to one insert per receipt, and
// the ones stored meanwhile count as duplicates.
func (s *Receipts) insert(ctx context.Context, creates []*ent.ReceiptCreate) (stored, dup int, err error) {
	if len(creates) == 0 {
		return 0, 0, nil
	}
	ids := make([]string, len(creates))
	for i, c := range creates {
		ids[i], _ = c.Mutation().ReceiptID()
	}
	existing, err := s.store.Client.Receipt.Query().Where(receipt.ReceiptIDIn(ids...)).Select(receipt.FieldReceiptID).Strings(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("receipts: %w", err)
	}
	fresh := make([]*ent.ReceiptCreate, 0, len(creates))
	for i, c := range creates {
		if !slices.Contains(existing, ids[i]) {
			fresh = append(fresh, c)
		}
	}
	dup = len(creates) - len(fresh)
	err = s.store.Client.Receipt.CreateBulk(fresh...).Exec(ctx)
	switch {
	case err == nil:
		return len(fresh), dup, nil
	case !ent.IsConstraintError(err):
		return 0, dup, fmt.Errorf("receipts: %w", err)
	}
	for _, c := range fresh {
		if err := c.Exec(ctx); err != nil {
			if ent.IsConstraintError(err) {
				dup++
				continue
			}
			return stored, dup, fmt.Errorf("receipts: %w", err)
		}
		stored++
	}
	return stored, dup, nil
}

// pruneReceipts deletes receipts past their retention, at most every
// ageSweepEvery per replica.
func (s *Receipts) pruneReceipts(ctx context.Context, now time.Time) {
	keep := s.limits.ReceiptRetention
	last := s.sweep.Load()
	if keep <= 0 || now.UnixNano()-last < int64(ageSweepEvery) || !s.sweep.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	if _, err := s.store.Client.Receipt.Delete().Where(receipt.ReceivedAtLT(now.Add(-keep))).Exec(ctx); err != nil {
		s.log.WarnContext(ctx, "prune receipts", "err", err)
	}
}

// ReceiptFilter narrows a receipt list.
type ReceiptFilter struct {
	Server, Version, Outcome string
}

// List lists receipts newest first (reviewers and admins).
func (s *Receipts) List(ctx context.Context, c *Caller, f ReceiptFilter, pg Page) ([]*mcpregv1.CallReceipt, string, error) {
	if c.Role != RoleReviewer && c.Role != RoleAdmin {
		return nil, "", deniedf("role %s does not read receipts (reviewers and admins do)", c.Role)
	}
	if f.Outcome != "" && !slices.Contains(outcomes, f.Outcome) {
		return nil, "", invalidf("outcome %q: want committed, failed, uncertain or rejected", f.Outcome)
	}
	size, before, err := s.intPageArgs(pg, "receipts")
	if err != nil {
		return nil, "", err
	}
	q := s.store.Client.Receipt.Query()
	if f.Server != "" {
		q = q.Where(receipt.ServerName(f.Server))
	}
	if f.Version != "" {
		q = q.Where(receipt.Version(f.Version))
	}
	if f.Outcome != "" {
		q = q.Where(receipt.Outcome(f.Outcome))
	}
	if before > 0 {
		q = q.Where(receipt.IDLT(int(before)))
	}
	rows, err := q.Order(ent.Desc(receipt.FieldID)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, "", err
	}
	rows, next := trimPage(rows, size, func(r *ent.Receipt) string { return encodeCursor("receipts", strconv.Itoa(r.ID)) })
	out := make([]*mcpregv1.CallReceipt, len(rows))
	for i, r := range rows {
		out[i] = receiptProto(r)
	}
	return out, next, nil
}

// ReceiptSummary is what the review page shows of a version's receipts.
type ReceiptSummary struct {
	// Counts are the receipts by outcome.
	Counts map[string]int
	// LastRejected are the latest rejected calls, newest first.
	LastRejected []*mcpregv1.CallReceipt
}

// Summary counts a version's receipts by outcome and lists its last
// rejections (reviewers and admins).
func (s *Receipts) Summary(ctx context.Context, c *Caller, name, version string, last int) (*ReceiptSummary, error) {
	if c.Role != RoleReviewer && c.Role != RoleAdmin {
		return nil, deniedf("role %s does not read receipts (reviewers and admins do)", c.Role)
	}
	var counts []struct {
		Outcome string `json:"outcome"`
		Count   int    `json:"count"`
	}
	err := s.store.Client.Receipt.Query().Where(receipt.ServerName(name), receipt.Version(version)).
		GroupBy(receipt.FieldOutcome).Aggregate(ent.Count()).Scan(ctx, &counts)
	if err != nil {
		return nil, fmt.Errorf("receipt counts: %w", err)
	}
	out := &ReceiptSummary{Counts: map[string]int{}}
	for _, c := range counts {
		out.Counts[c.Outcome] = c.Count
	}
	rows, err := s.store.Client.Receipt.Query().Where(receipt.ServerName(name), receipt.Version(version),
		receipt.Outcome(string(gate.OutcomeRejected))).Order(ent.Desc(receipt.FieldID)).Limit(last).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("receipt rejections: %w", err)
	}
	for _, r := range rows {
		out.LastRejected = append(out.LastRejected, receiptProto(r))
	}
	return out, nil
}

func receiptProto(r *ent.Receipt) *mcpregv1.CallReceipt {
	return &mcpregv1.CallReceipt{ReceiptId: r.ReceiptID, Server: r.ServerName, Version: r.Version,
		PinRevision: int32(r.PinRevision), Tool: r.Tool, ToolHash: r.ToolHash, ArgumentsDigest: r.ArgumentsDigest,
		IdempotencyKey: r.IdempotencyKey, StartedAt: timestamppb.New(r.StartedAt), EndedAt: timestamppb.New(r.EndedAt),
		Outcome: r.Outcome, Reason: r.Reason, ResultDigest: r.ResultDigest, Findings: r.Findings,
		Principal: r.Principal, ReceivedAt: timestamppb.New(r.ReceivedAt)}
}

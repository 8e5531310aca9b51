package registry_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

const zeroDigest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// callReceipt is a well-formed receipt for name@version.
func callReceipt(id, name, version string, outcome gate.Outcome) *mcpregv1.CallReceipt {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	return &mcpregv1.CallReceipt{ReceiptId: id, Server: name, Version: version, PinRevision: 1, Tool: "get_forecast",
		ToolHash: zeroDigest, ArgumentsDigest: zeroDigest, StartedAt: timestamppb.New(t0),
		EndedAt: timestamppb.New(t0.Add(time.Second)), Outcome: string(outcome)}
}

// TestReceipts: a host posts receipts for a version it may resolve; a
// receipt posted twice is stored once; malformed receipts and receipts
// for versions the host may not resolve (pending, restricted to another
// environment, unknown) are rejected with the reason, the rest stored;
// only hosts and admins post, only reviewers and admins list.
func TestReceipts(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, storetest.Open(t, store.DialectSQLite))
	const w, p = "io.github.acme/weather", "io.github.acme/payments"
	submit(t, svc, owner, w, "1.0.0")
	if _, err := svc.Review.Transition(ctx, reviewer, registry.ActionApprove, w, "1.0.0", "ok"); err != nil {
		t.Fatal(err)
	}
	submit(t, svc, owner, w, "2.0.0") // pending
	prodOnly := `{"contractVersion":"mcpreg.contract/v1","owner":"acme","auth":{"mode":"none"},"isolation":"container","hostEnvironments":["prod"]}`
	if _, err := svc.Review.Submit(ctx, owner, registry.Submission{ServerJSON: serverJSON(p, "1.0.0"), Tools: []byte(tools), Contract: []byte(prodOnly)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Review.Transition(ctx, reviewer, registry.ActionApprove, p, "1.0.0", "ok"); err != nil {
		t.Fatal(err)
	}
	host := &registry.Caller{Principal: "laptop", Role: registry.RoleHost, EnvLabels: []string{"dev"}}

	bad := func(id string, f func(r *mcpregv1.CallReceipt)) *mcpregv1.CallReceipt {
		r := callReceipt(id, w, "1.0.0", gate.OutcomeCommitted)
		f(r)
		return r
	}
	batch := []*mcpregv1.CallReceipt{
		callReceipt("rcpt_a", w, "1.0.0", gate.OutcomeCommitted),
		callReceipt("rcpt_b", w, "1.0.0", gate.OutcomeRejected),
		callReceipt("rcpt_a", w, "1.0.0", gate.OutcomeCommitted), // twice in one batch
		callReceipt("rcpt_pending", w, "2.0.0", gate.OutcomeCommitted),
		callReceipt("rcpt_prod", p, "1.0.0", gate.OutcomeCommitted),
		callReceipt("rcpt_unknown", "io.github.acme/none", "1.0.0", gate.OutcomeCommitted),
		bad("bad id with spaces", func(*mcpregv1.CallReceipt) {}),
		bad("rcpt_outcome", func(r *mcpregv1.CallReceipt) { r.Outcome = "approved" }),
		bad("rcpt_digest", func(r *mcpregv1.CallReceipt) { r.ArgumentsDigest = "md5:00" }),
		bad("rcpt_backwards", func(r *mcpregv1.CallReceipt) { r.EndedAt = timestamppb.New(r.StartedAt.AsTime().Add(-time.Second)) }),
		bad("rcpt_future", func(r *mcpregv1.CallReceipt) {
			r.StartedAt, r.EndedAt = timestamppb.New(time.Now().Add(48*time.Hour)), timestamppb.New(time.Now().Add(49*time.Hour))
		}),
		bad("rcpt_name", func(r *mcpregv1.CallReceipt) { r.Server = "not a name" }),
	}
	out, err := svc.Receipts.Post(ctx, host, batch)
	if err != nil {
		t.Fatal(err)
	}
	if out.GetStored() != 2 || out.GetDuplicates() != 1 {
		t.Errorf("stored %d, duplicates %d; want 2 and 1", out.GetStored(), out.GetDuplicates())
	}
	want := map[string]string{
		"rcpt_pending": "io.github.acme/weather@2.0.0 is not a version this token may resolve",
		"rcpt_prod":    "io.github.acme/payments@1.0.0 is not a version this token may resolve",
		"rcpt_unknown": "is not a version this token may resolve", "bad id with spaces": "receipt_id",
		"rcpt_outcome": `outcome "approved"`, "rcpt_digest": "arguments_digest", "rcpt_backwards": "ended_at is before started_at",
		"rcpt_future": "in the future", "rcpt_name": "not a server name",
	}
	for _, rej := range out.GetRejected() {
		if w, ok := want[rej.GetReceiptId()]; !ok || !strings.Contains(rej.GetReason(), w) {
			t.Errorf("rejected %s: %q, want %q", rej.GetReceiptId(), rej.GetReason(), w)
		}
		delete(want, rej.GetReceiptId())
	}
	if len(want) > 0 {
		t.Errorf("not rejected: %v", want)
	}
	again, err := svc.Receipts.Post(ctx, host, []*mcpregv1.CallReceipt{callReceipt("rcpt_a", w, "1.0.0", gate.OutcomeCommitted)})
	if err != nil || again.GetStored() != 0 || again.GetDuplicates() != 1 {
		t.Errorf("posting rcpt_a again: %+v %v, want a duplicate", again, err)
	}

	listed, _, err := svc.Receipts.List(ctx, reviewer, registry.ReceiptFilter{Server: w}, registry.Page{})
	if err != nil || len(listed) != 2 || listed[0].GetReceiptId() != "rcpt_b" || listed[0].GetPrincipal() != "laptop" {
		t.Fatalf("list: %v %+v", err, listed)
	}
	rejected, _, err := svc.Receipts.List(ctx, admin, registry.ReceiptFilter{Outcome: string(gate.OutcomeRejected)}, registry.Page{})
	if err != nil || len(rejected) != 1 {
		t.Errorf("list rejected: %v %+v", err, rejected)
	}
	sum, err := svc.Receipts.Summary(ctx, reviewer, w, "1.0.0", 5)
	if err != nil || sum.Counts[string(gate.OutcomeCommitted)] != 1 || sum.Counts[string(gate.OutcomeRejected)] != 1 || len(sum.LastRejected) != 1 {
		t.Errorf("summary: %v %+v", err, sum)
	}

	many := make([]*mcpregv1.CallReceipt, registry.MaxReceiptBatch+1)
	for i := range many {
		many[i] = callReceipt(fmt.Sprintf("rcpt_%d", i), w, "1.0.0", gate.OutcomeCommitted)
	}
	if _, err := svc.Receipts.Post(ctx, host, many); !errors.Is(err, registry.ErrInvalid) || !strings.Contains(err.Error(), "501 in the batch") {
		t.Errorf("a batch of 501: %v", err)
	}
	for _, c := range []*registry.Caller{owner, reviewer} {
		if _, err := svc.Receipts.Post(ctx, c, batch[:1]); !errors.Is(err, registry.ErrPermissionDenied) {
			t.Errorf("%s posting receipts: %v", c.Role, err)
		}
	}
	for _, c := range []*registry.Caller{owner, host} {
		if _, _, err := svc.Receipts.List(ctx, c, registry.ReceiptFilter{}, registry.Page{}); !errors.Is(err, registry.ErrPermissionDenied) {
			t.Errorf("%s listing receipts: %v", c.Role, err)
		}
	}
	if _, _, err := svc.Receipts.List(ctx, reviewer, registry.ReceiptFilter{Outcome: "approved"}, registry.Page{}); !errors.Is(err, registry.ErrInvalid) {
		t.Errorf("an unknown outcome filter: %v", err)
	}
}

// TestReceiptsPostedTwiceAtOnce: two hosts' uploads of the same receipts
// racing each other store each receipt once; each answer accounts for
// every receipt as stored or duplicate.
func TestReceiptsPostedTwiceAtOnce(t *testing.T) {
	ctx := context.Background()
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		svc := newService(t, storetest.Open(t, dialect))
		const w = "io.github.acme/weather"
		submit(t, svc, owner, w, "1.0.0")
		if _, err := svc.Review.Transition(ctx, reviewer, registry.ActionApprove, w, "1.0.0", "ok"); err != nil {
			t.Fatal(err)
		}
		batch := make([]*mcpregv1.CallReceipt, 50)
		for i := range batch {
			batch[i] = callReceipt(fmt.Sprintf("rcpt_race_%d", i), w, "1.0.0", gate.OutcomeCommitted)
		}
		host := &registry.Caller{Principal: "laptop", Role: registry.RoleHost}
		outs := make([]*mcpregv1.PostReceiptsResponse, 4)
		errs := make([]error, len(outs))
		var wg sync.WaitGroup
		for i := range outs {
			wg.Go(func() { outs[i], errs[i] = svc.Receipts.Post(ctx, host, batch) })
		}
		wg.Wait()
		stored := 0
		for i, out := range outs {
			if errs[i] != nil || out.GetStored()+out.GetDuplicates() != 50 {
				t.Fatalf("upload %d: %v %+v", i, errs[i], out)
			}
			stored += int(out.GetStored())
		}
		listed, _, err := svc.Receipts.List(ctx, reviewer, registry.ReceiptFilter{Server: w}, registry.Page{Size: 100})
		if stored != 50 || err != nil || len(listed) != 50 {
			t.Errorf("stored %d in all, %d listed (%v); want 50 and 50", stored, len(listed), err)
		}
	})
}

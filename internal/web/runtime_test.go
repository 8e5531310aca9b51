package web_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// TestReviewShowsGateReceipts: the review page counts the receipts hosts
// posted for the version by outcome and lists the calls gates refused,
// with the reason; a reason with markup stays text.
func TestReviewShowsGateReceipts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.submit(t, bootstrapAs("root"), weather, "1.0.0", tools)
	if _, err := e.svc.Review.Transition(context.Background(), &registry.Caller{Principal: "alice", Role: registry.RoleReviewer},
		registry.ActionApprove, weather, "1.0.0", "ok"); err != nil {
		t.Fatal(err)
	}
	page := e.browser(t).signIn("alice").get("/review/" + weather + "/1.0.0")
	mustContain(t, page.Body, `<h2 id="runtime">Runtime</h2>`, "committed: <strong>0</strong>", "No call to this version was refused by a gate.")

	t0 := time.Now().Add(-time.Minute)
	receipt := func(id string, o gate.Outcome, reason string) *mcpregv1.CallReceipt {
		return &mcpregv1.CallReceipt{ReceiptId: id, Server: weather, Version: "1.0.0", Tool: "get_forecast",
			ArgumentsDigest: "sha256:0000000000000000000000000000000000000000000000000000000000000000",
			StartedAt:       timestamppb.New(t0), EndedAt: timestamppb.New(t0.Add(time.Second)), Outcome: string(o), Reason: reason}
	}
	host := &registry.Caller{Principal: "laptop", Role: registry.RoleHost}
	out, err := e.svc.Receipts.Post(context.Background(), host, []*mcpregv1.CallReceipt{
		receipt("rcpt_1", gate.OutcomeCommitted, ""), receipt("rcpt_2", gate.OutcomeCommitted, ""),
		receipt("rcpt_3", gate.OutcomeRejected, `scope 'write' required but not granted <script>alert(1)</script>`),
	})
	if err != nil || out.GetStored() != 3 {
		t.Fatalf("posting receipts: %v %+v", err, out)
	}
	page = e.browser(t).signIn("bob").get("/review/" + weather + "/1.0.0")
	mustContain(t, page.Body, "committed: <strong>2</strong>", "rejected: <strong>1</strong>", "The latest 1 calls the gates refused",
		"laptop", "scope &#39;write&#39; required but not granted &lt;script&gt;alert(1)&lt;/script&gt;")
}

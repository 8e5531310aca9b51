package registry_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/ent/reviewdecision"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// The tests in this file stand two replicas up on one database: two
// store.Open of one DSN (two connection pools, as two mcpregd processes
// have) with a Service on each. Racing calls start together behind a
// barrier; every round checks that the outcome is one some serial order of
// the calls would have produced, audit events included.

// raceRounds is how often each race is run.
const raceRounds = 20

type replicaPair struct {
	a, b *registry.Services
	st   *store.Store // the first replica's store, for direct checks
}

func (p replicaPair) replica(i int) *registry.Services { return []*registry.Services{p.a, p.b}[i] }

// forEachReplicaPair runs fn per dialect with two replicas of one fresh
// database.
func forEachReplicaPair(t *testing.T, fn func(t *testing.T, p replicaPair)) {
	for _, d := range storetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			dsn := storetest.DSN(t, d)
			sa, sb := storetest.OpenReplica(t, dsn), storetest.OpenReplica(t, dsn)
			fn(t, replicaPair{a: newService(t, sa), b: newService(t, sb), st: sa})
		})
	}
}

// as is c acting in one request, so that its audit events can be told apart.
func as(c *registry.Caller, requestID string) *registry.Caller {
	cc := *c
	cc.RequestID = requestID
	return &cc
}

var (
	bob   = &registry.Caller{Principal: "bob", Role: registry.RoleReviewer}
	carol = &registry.Caller{Principal: "carol", Role: registry.RoleReviewer}
)

// auditOf lists every audit event (of subject, when not empty), all pages.
func auditOf(t *testing.T, svc *registry.Services, subject string) []*mcpregv1.AuditEvent {
	t.Helper()
	var all []*mcpregv1.AuditEvent
	for tok := ""; ; {
		evs, next, err := svc.Audit.ListAuditEvents(context.Background(), registry.AuditFilter{Subject: subject}, registry.Page{Size: 200, Token: tok})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, evs...)
		if next == "" {
			return all
		}
		tok = next
	}
}

// eventNames shows events as "action/request id".
func eventNames(evs []*mcpregv1.AuditEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Action + "/" + e.RequestId
	}
	return out
}

func decisionCount(t *testing.T, st *store.Store, ver string) int {
	t.Helper()
	return st.Client.ReviewDecision.Query().Where(reviewdecision.HasVersionWith(version.Version(ver))).
		CountX(context.Background())
}

// verifyChain checks the audit chain through both replicas: intact and
// exactly want events long.
func verifyChain(t *testing.T, p replicaPair, want int64) {
	t.Helper()
	for i, svc := range []*registry.Services{p.a, p.b} {
		rep, err := svc.Audit.VerifyAuditChain(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK || rep.Events != want {
			t.Errorf("replica %d: audit verify ok=%t events=%d (want %d) broken at %d: %s",
				i, rep.OK, rep.Events, want, rep.FirstBrokenSeq, rep.Problem)
		}
	}
}

// TestReplicaRaceDoubleApprove: two reviewers approve one pending version
// at once through different replicas. One approval wins; the other gets a
// state error naming the approved state; one approve event, one decision.
func TestReplicaRaceDoubleApprove(t *testing.T) {
	forEachReplicaPair(t, func(t *testing.T, p replicaPair) {
		ctx := context.Background()
		const name = "io.github.acme/race"
		wins := map[string]int{}
		for round := range raceRounds {
			ver := fmt.Sprintf("1.0.%d", round)
			submit(t, p.a, owner, name, ver)
			callers := []*registry.Caller{as(bob, "approve-a"), as(carol, "approve-b")}
			errs := make([]error, 2)
			testkit.Race(2, func(i int) {
				_, errs[i] = p.replica(i).Review.Transition(ctx, callers[i], registry.ActionApprove, name, ver, "looks right")
			})
			winner := -1
			for i, err := range errs {
				var se *registry.StateError
				switch {
				case err == nil && winner < 0:
					winner = i
				case err == nil:
					t.Fatalf("round %d: both approvals succeeded", round)
				case !errors.As(err, &se) || se.Current != "approved" || se.Action != "approve":
					t.Fatalf("round %d: losing approval: %v, want a state error naming approved", round, err)
				}
			}
			if winner < 0 {
				t.Fatalf("round %d: no approval succeeded: %v", round, errs)
			}
			wins[callers[winner].Principal]++
			want := []string{"version.submit/", "version.approve/" + callers[winner].RequestID}
			if got := eventNames(auditOf(t, p.b, name+"@"+ver)); !slices.Equal(got, want) {
				t.Fatalf("round %d: audit events %v, want %v", round, got, want)
			}
			if n := decisionCount(t, p.st, ver); n != 1 {
				t.Fatalf("round %d: %d decision records, want 1", round, n)
			}
			v, err := p.b.Review.GetVersion(ctx, reviewer, name, ver)
			if err != nil || v.State != "approved" || len(v.Decisions) != 1 || v.Decisions[0].Actor != callers[winner].Principal {
				t.Fatalf("round %d: version after the race: %v (err %v)", round, v, err)
			}
		}
		t.Logf("approvals won: %v", wins)
		verifyChain(t, p, 2*raceRounds)
	})
}

// lifecycleModel is the README's lifecycle, written out again as the oracle
// the racing transitions are checked against.
var lifecycleModel = map[registry.Action]struct {
	from []string
	to   string
}{
	registry.ActionApprove:    {[]string{"pending_review"}, "approved"},
	registry.ActionReject:     {[]string{"pending_review"}, "rejected"},
	registry.ActionQuarantine: {[]string{"approved"}, "quarantined"},
	registry.ActionRelease:    {[]string{"quarantined"}, "approved"},
	registry.ActionRevoke:     {[]string{"approved", "quarantined"}, "revoked"},
}

// raceCall is one transition in a race.
type raceCall struct {
	replica int
	by      *registry.Caller
	action  registry.Action
}

// raceOutcome is what a race did: per call the state it saw when refused
// ("" when it succeeded), the final state and the audit events of the race.
type raceOutcome struct {
	refused []string
	final   string
	events  []string
}

func (o raceOutcome) String() string {
	return fmt.Sprintf("refused=%q final=%s events=%v", o.refused, o.final, o.events)
}

func (o raceOutcome) equal(p raceOutcome) bool {
	return slices.Equal(o.refused, p.refused) && o.final == p.final && slices.Equal(o.events, p.events)
}

// serialOutcome runs calls in order (indexes into calls) on the model.
func serialOutcome(state string, calls []raceCall, order []int) raceOutcome {
	o := raceOutcome{refused: make([]string, len(calls))}
	for _, i := range order {
		rule := lifecycleModel[calls[i].action]
		if !slices.Contains(rule.from, state) {
			o.refused[i] = state
			continue
		}
		state = rule.to
		o.events = append(o.events, "version."+string(calls[i].action)+"/"+calls[i].by.RequestID)
	}
	o.final = state
	return o
}

// permutations returns every order of 0 … n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			out = append(out, slices.Insert(slices.Clone(p), at, n-1))
		}
	}
	return out
}

// TestReplicaRaceTransitions races conflicting transitions of one version
// through both replicas. Each round's outcome (who was refused and in which
// state, the final state, the audit events in order) must equal that of
// some serial order of the calls, and the chain must verify at the end.
func TestReplicaRaceTransitions(t *testing.T) {
	dave := &registry.Caller{Principal: "dave", Role: registry.RoleAdmin}
	scenarios := []struct {
		name  string
		setup []registry.Action
		calls []raceCall
	}{
		{"approve vs reject", nil, []raceCall{
			{0, bob, registry.ActionApprove}, {1, carol, registry.ActionReject}}},
		{"approve vs quarantine of a pending version", nil, []raceCall{
			{0, bob, registry.ActionApprove}, {1, carol, registry.ActionQuarantine}}},
		{"quarantine vs revoke", []registry.Action{registry.ActionApprove}, []raceCall{
			{0, bob, registry.ActionQuarantine}, {1, carol, registry.ActionRevoke}}},
		{"release vs revoke", []registry.Action{registry.ActionApprove, registry.ActionQuarantine}, []raceCall{
			{0, bob, registry.ActionRelease}, {1, carol, registry.ActionRevoke}}},
		{"approve, quarantine and revoke", nil, []raceCall{
			{0, bob, registry.ActionApprove}, {1, carol, registry.ActionQuarantine}, {1, dave, registry.ActionRevoke}}},
	}
	forEachReplicaPair(t, func(t *testing.T, p replicaPair) {
		events := int64(0)
		for si, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				seen := map[string]int{}
				for round := range raceRounds {
					ver := fmt.Sprintf("%d.0.%d", si+1, round)
					o := raceTransitions(t, p, ver, sc.setup, sc.calls, round)
					seen[o.String()]++
					events += int64(1 + len(sc.setup) + len(o.events))
					if n := decisionCount(t, p.st, ver); n != len(sc.setup)+len(o.events) {
						t.Fatalf("round %d: %d decision records, want %d", round, n, len(sc.setup)+len(o.events))
					}
				}
				for o, n := range seen {
					t.Logf("%2d× %s", n, o)
				}
			})
		}
		verifyChain(t, p, events)
	})
}

// raceTransitions submits ver, applies setup serially, races calls and
// checks the outcome against every serial order.
func raceTransitions(t *testing.T, p replicaPair, ver string, setup []registry.Action, calls []raceCall, round int) raceOutcome {
	t.Helper()
	ctx := context.Background()
	const name = "io.github.acme/race"
	submit(t, p.a, owner, name, ver)
	for _, a := range setup {
		if _, err := p.b.Review.Transition(ctx, admin, a, name, ver, "setup"); err != nil {
			t.Fatalf("setup %s: %v", a, err)
		}
	}
	before := "pending_review"
	for _, a := range setup {
		before = lifecycleModel[a].to
	}
	calls = slices.Clone(calls)
	for i := range calls {
		calls[i].by = as(calls[i].by, fmt.Sprintf("c%d", i)) // unique within the version's events
	}
	got := raceOutcome{refused: make([]string, len(calls))}
	testkit.Race(len(calls), func(i int) {
		c := calls[i]
		_, err := p.replica(c.replica).Review.Transition(ctx, c.by, c.action, name, ver, "racing")
		var se *registry.StateError
		switch {
		case errors.As(err, &se):
			got.refused[i] = se.Current
		case err != nil:
			got.refused[i] = "error: " + err.Error()
		}
	})
	v, err := p.a.Review.GetVersion(ctx, reviewer, name, ver)
	if err != nil {
		t.Fatal(err)
	}
	got.final = v.State
	evs := auditOf(t, p.b, name+"@"+ver)
	if len(evs) < 1+len(setup) {
		t.Fatalf("round %d: audit events %v lack the submission and setup", round, eventNames(evs))
	}
	got.events = eventNames(evs[1+len(setup):])
	var serial []string
	for _, order := range permutations(len(calls)) {
		want := serialOutcome(before, calls, order)
		if got.equal(want) {
			return got
		}
		serial = append(serial, want.String())
	}
	t.Fatalf("round %d: outcome %s is none a serial order gives:\n%s", round, got, strings.Join(serial, "\n"))
	return got
}

// TestReplicaRaceIdempotentSubmit sends one submission with one
// idempotency key through both replicas at once, as a client retrying
// against another replica after a lost response does. Both calls must get
// the one version back (a retry after a lost response must return the
// original, not an error); one version, one key, one audit event. Even
// rounds create the server, odd ones add a version to it.
func TestReplicaRaceIdempotentSubmit(t *testing.T) {
	forEachReplicaPair(t, func(t *testing.T, p replicaPair) {
		ctx := context.Background()
		for round := range raceRounds {
			name, ver := fmt.Sprintf("io.github.acme/idem-%d", round/2), fmt.Sprintf("1.0.%d", round%2)
			sub := registry.Submission{ServerJSON: serverJSON(name, ver), Tools: []byte(tools), IdempotencyKey: fmt.Sprintf("key-%d", round)}
			got := make([]*registry.VersionView, 2)
			errs := make([]error, 2)
			testkit.Race(2, func(i int) { got[i], errs[i] = p.replica(i).Review.Submit(ctx, owner, sub) })
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("round %d: submissions with one key: %v", round, errs)
			}
			// A later retry, through either replica, returns the original too.
			for i := range 2 {
				again, err := p.replica(i).Review.Submit(ctx, owner, sub)
				if err != nil {
					t.Fatalf("round %d: retry through replica %d: %v", round, i, err)
				}
				got = append(got, again)
			}
			for i, v := range got {
				if v.Name != name || v.Version != ver || !v.SubmittedAt.AsTime().Equal(got[0].SubmittedAt.AsTime()) ||
					v.Pins.GetToolDefinitionHash() != got[0].Pins.GetToolDefinitionHash() {
					t.Fatalf("round %d: answer %d is %s@%s submitted %v, want the one version of answer 0 (%v)",
						round, i, v.Name, v.Version, v.SubmittedAt.AsTime(), got[0].SubmittedAt.AsTime())
				}
			}
			if got := eventNames(auditOf(t, p.b, name+"@"+ver)); !slices.Equal(got, []string{"version.submit/"}) {
				t.Fatalf("round %d: audit events %v, want one submission", round, got)
			}
		}
		if n := p.st.Client.Version.Query().CountX(ctx); n != raceRounds {
			t.Errorf("%d versions stored, want %d", n, raceRounds)
		}
		if n := p.st.Client.IdempotencyKey.Query().CountX(ctx); n != raceRounds {
			t.Errorf("%d idempotency keys stored, want %d", n, raceRounds)
		}
		verifyChain(t, p, raceRounds)
	})
}

// TestReplicaRaceAuditChain submits 2×25 distinct versions through both
// replicas at once: ten versions of each of five new servers, so servers
// are created and updated concurrently too. Every write succeeds and has
// exactly one audit event; sequence numbers run 1…50 without gap or
// duplicate, in time order, and the chain verifies.
func TestReplicaRaceAuditChain(t *testing.T) {
	const perReplica = 25
	forEachReplicaPair(t, func(t *testing.T, p replicaPair) {
		ctx := context.Background()
		subjects := make([]string, 2*perReplica)
		errs := make([]error, 2*perReplica)
		testkit.Race(2*perReplica, func(i int) {
			r, n := i/perReplica, i%perReplica
			name, ver := fmt.Sprintf("io.github.acme/chain-%d", n%5), fmt.Sprintf("%d.0.%d", r+1, n)
			subjects[i] = name + "@" + ver
			_, errs[i] = p.replica(r).Review.Submit(ctx, as(owner, subjects[i]), registry.Submission{ServerJSON: serverJSON(name, ver), Tools: []byte(tools)})
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("submission %s: %v", subjects[i], err)
			}
		}
		evs := auditOf(t, p.a, "")
		if len(evs) != len(subjects) {
			t.Errorf("%d audit events, want %d", len(evs), len(subjects))
		}
		seen := map[string]int{}
		for i, e := range evs {
			if e.Seq != int64(i+1) {
				t.Fatalf("event %d has sequence %d: %v", i+1, e.Seq, eventNames(evs))
			}
			if i > 0 && e.OccurredAt.AsTime().Before(evs[i-1].OccurredAt.AsTime()) {
				t.Errorf("event %d occurred before event %d", e.Seq, e.Seq-1)
			}
			if e.Action != "version.submit" || e.RequestId != e.Subject {
				t.Errorf("event %d: %s of %s in request %s", e.Seq, e.Action, e.Subject, e.RequestId)
			}
			seen[e.Subject]++
		}
		for _, s := range subjects {
			if seen[s] != 1 {
				t.Errorf("%s has %d audit events, want 1", s, seen[s])
			}
		}
		if n := p.st.Client.Version.Query().CountX(ctx); n != len(subjects) {
			t.Errorf("%d versions stored, want %d", n, len(subjects))
		}
		verifyChain(t, p, int64(len(subjects)))
	})
}

package registry_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/store"
	"github.com/mcpreg/mcpreg/internal/storetest"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

const (
	cmpName   = "io.github.acme/cmp"
	cmpTools1 = `{"tools":[
 {"name":"echo","description":"Echo text back.","inputSchema":{"type":"object"}},
 {"name":"search","description":"Search the web.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":10}}}},
 {"name":"stable","description":"Never changes.","inputSchema":{"type":"object"}},
 {"name":"old","description":"Going away.","inputSchema":{"type":"object"}}]}`
	cmpTools2 = `{"tools":[
 {"name":"echo","description":"Echo the text back quickly.","inputSchema":{"type":"object"}},
 {"name":"search","description":"Search the web.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":100}}}},
 {"name":"stable","description":"Never changes.","inputSchema":{"type":"object"}},
 {"name":"fetch","description":"Fetch a page.","inputSchema":{"type":"object"}}]}`
	cmpContract1 = `{"contractVersion":"mcpreg.contract/v1","owner":"acme","auth":{"mode":"none"},"isolation":"container",
 "egress":{"mode":"allowlisted_external","allow":["a.example.com"]}}`
	cmpContract2 = `{"contractVersion":"mcpreg.contract/v1","owner":"acme","auth":{"mode":"none"},"isolation":"container",
 "egress":{"mode":"allowlisted_external","allow":["b.example.com"]}}`
)

func submitCmp(t *testing.T, svc *registry.Services, ver, tools, contract string) {
	t.Helper()
	_, err := svc.Review.Submit(context.Background(), owner, registry.Submission{ServerJSON: serverJSON(cmpName, ver),
		Tools: []byte(tools), Contract: []byte(contract)})
	if err != nil {
		t.Fatalf("submit %s: %v", ver, err)
	}
}

func transition(t *testing.T, svc *registry.Services, a registry.Action, ver string, acks ...string) {
	t.Helper()
	if _, err := svc.Review.Transition(context.Background(), reviewer, a, cmpName, ver, "test", acks...); err != nil {
		t.Fatalf("%s %s: %v", a, ver, err)
	}
}

func compare(t *testing.T, svc *registry.Services, ver, base string) *mcpregv1.VersionComparison {
	t.Helper()
	c, err := svc.Review.CompareVersions(context.Background(), reviewer, cmpName, ver, base)
	if err != nil {
		t.Fatalf("compare %s with %q: %v", ver, base, err)
	}
	return c
}

func toolStatuses(c *mcpregv1.VersionComparison) []string {
	var out []string
	for _, tc := range c.GetTools() {
		out = append(out, tc.GetName()+":"+tc.GetStatus())
	}
	return out
}

// TestCompareVersions: a new version compared with the approved one below
// it shows each changed, added and removed tool with its changes, the
// contract's widenings and narrowings, and which findings are new.
func TestCompareVersions(t *testing.T) {
	svc := newService(t, storetest.Open(t, store.DialectSQLite))
	submitCmp(t, svc, "1.0.0", cmpTools1, cmpContract1)
	if c := compare(t, svc, "1.0.0", ""); !c.GetFirstVersion() || c.GetBaseSource() != registry.BaseNone ||
		c.GetSummary().GetText() != "first version" || len(c.GetTools()) != 0 {
		t.Fatalf("first version: %v", c)
	}
	transition(t, svc, registry.ActionApprove, "1.0.0")
	submitCmp(t, svc, "1.1.0", cmpTools2, cmpContract2)

	c := compare(t, svc, "1.1.0", "")
	if c.GetBase() != "1.0.0" || c.GetBaseSource() != registry.BaseDefault || c.GetFirstVersion() {
		t.Fatalf("base = %q (%s)", c.GetBase(), c.GetBaseSource())
	}
	want := []string{"echo:changed", "search:changed", "fetch:added", "old:removed", "stable:unchanged"}
	if got := toolStatuses(c); !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	echo, search := c.GetTools()[0].GetChanges(), c.GetTools()[1].GetChanges()
	if len(echo) != 1 || echo[0].GetClass() != string(diffreview.ClassDescriptionChanged) || echo[0].GetAction() != "" ||
		!slices.ContainsFunc(echo[0].GetWords(), func(s *mcpregv1.DiffSegment) bool { return s.GetOp() == "insert" && s.GetText() == " quickly" }) {
		t.Fatalf("echo changes: %v", echo)
	}
	if len(search) != 1 || len(search[0].GetSchema()) != 1 || search[0].GetSchema()[0].GetPointer() != "/properties/n/maximum" ||
		search[0].GetSchema()[0].GetBefore() != "10" || search[0].GetSchema()[0].GetAfter() != "100" {
		t.Fatalf("search changes: %v", search)
	}
	var contract []string
	for _, ch := range c.GetContract() {
		contract = append(contract, ch.GetDirection()+" "+ch.GetId()+" "+ch.GetMessage())
	}
	if want := []string{`widening egress_host_added:b.example.com egress destination "b.example.com" added`,
		`narrowing  egress destination "a.example.com" removed`, "narrowing  tool no longer in the contract"}; !slices.Equal(contract, want) {
		t.Fatalf("contract = %q, want %q", contract, want)
	}
	status := map[string]string{}
	for _, f := range c.GetFindings() {
		if f.GetFinding().GetKind() == "contract.tool_defaulted" {
			status[f.GetFinding().GetTool()] = f.GetStatus()
		}
	}
	if status["stable"] != registry.FindingCarriedOver || status["fetch"] != registry.FindingNew || status["old"] != "" {
		t.Fatalf("finding statuses: %v", status)
	}
	s := c.GetSummary()
	if s.GetToolsChanged() != 2 || s.GetToolsAdded() != 1 || s.GetToolsRemoved() != 1 || s.GetToolsUnchanged() != 1 ||
		s.GetContractWidenings() != 1 || s.GetContractNarrowings() != 2 || s.GetNewFindings() == 0 ||
		!strings.HasPrefix(s.GetText(), "2 tools changed, 1 added, 1 removed; 1 contract widening; 2 contract narrowings; ") {
		t.Fatalf("summary: %v", s)
	}

	// Any other version may be chosen as the base: the other way round.
	back := compare(t, svc, "1.0.0", "1.1.0")
	if back.GetBase() != "1.1.0" || back.GetBaseSource() != registry.BaseChosen {
		t.Fatalf("chosen base: %q (%s)", back.GetBase(), back.GetBaseSource())
	}
	if got, want := toolStatuses(back), []string{"echo:changed", "search:changed", "old:added", "fetch:removed", "stable:unchanged"}; !slices.Equal(got, want) {
		t.Fatalf("tools the other way round = %v, want %v", got, want)
	}
}

// TestCompareBaseRule: the default base is the highest version below the
// compared one that was approved and is not revoked (quarantined counts),
// and approval's contract widenings use the same base.
func TestCompareBaseRule(t *testing.T) {
	svc := newService(t, storetest.Open(t, store.DialectSQLite))
	submitCmp(t, svc, "1.0.0", cmpTools1, cmpContract1)
	transition(t, svc, registry.ActionApprove, "1.0.0")
	submitCmp(t, svc, "1.1.0", cmpTools2, cmpContract2)
	transition(t, svc, registry.ActionApprove, "1.1.0", "egress_host_added:b.example.com")
	submitCmp(t, svc, "2.0.0", cmpTools2, cmpContract1)
	submitCmp(t, svc, "0.9.0", cmpTools1, cmpContract2)

	if c := compare(t, svc, "2.0.0", ""); c.GetBase() != "1.1.0" {
		t.Fatalf("2.0.0 compared with %q, want 1.1.0", c.GetBase())
	}
	// Nothing approved below 0.9.0; a higher approved version is no base.
	if c := compare(t, svc, "0.9.0", ""); !c.GetFirstVersion() {
		t.Fatalf("0.9.0 compared with %q, want first version", c.GetBase())
	}
	transition(t, svc, registry.ActionQuarantine, "1.1.0")
	if c := compare(t, svc, "2.0.0", ""); c.GetBase() != "1.1.0" {
		t.Fatalf("with 1.1.0 quarantined: compared with %q, want 1.1.0", c.GetBase())
	}
	// Approval checks the widenings against the same base: 1.1.0 allowed
	// b.example.com, 2.0.0 allows a.example.com again.
	_, err := svc.Review.Transition(context.Background(), reviewer, registry.ActionApprove, cmpName, "2.0.0", "test")
	if !errors.Is(err, registry.ErrFailedPrecondition) || !strings.Contains(err.Error(), "approved version 1.1.0") ||
		!strings.Contains(err.Error(), "egress_host_added:a.example.com") {
		t.Fatalf("approve 2.0.0 without acks: %v", err)
	}
	transition(t, svc, registry.ActionRevoke, "1.1.0")
	if c := compare(t, svc, "2.0.0", ""); c.GetBase() != "1.0.0" || c.GetSummary().GetContractWidenings() != 0 {
		t.Fatalf("with 1.1.0 revoked: compared with %q (contract %v), want 1.0.0 and no widening", c.GetBase(), c.GetContract())
	}
	transition(t, svc, registry.ActionApprove, "2.0.0")
}

// TestCompareRefuses: bad names, unknown versions, the version itself as
// base, and a caller who may not read the namespace.
func TestCompareRefuses(t *testing.T) {
	svc := newService(t, storetest.Open(t, store.DialectSQLite))
	submitCmp(t, svc, "1.0.0", cmpTools1, cmpContract1)
	other := &registry.Caller{Principal: "other-ci", Role: registry.RoleOwner, Namespaces: []string{"io.github.other"}}
	for _, tc := range []struct {
		c               *registry.Caller
		name, ver, base string
		want            error
		says            string
	}{
		{reviewer, cmpName, "9.9.9", "", registry.ErrNotFound, "version io.github.acme/cmp@9.9.9"},
		{reviewer, cmpName, "1.0.0", "9.9.9", registry.ErrNotFound, "base: "},
		{reviewer, cmpName, "1.0.0", "1.0.0", registry.ErrInvalid, "is the version compared"},
		{reviewer, "no slash", "1.0.0", "", registry.ErrInvalid, "server name"},
		{other, cmpName, "1.0.0", "", registry.ErrPermissionDenied, "may not read namespace"},
	} {
		_, err := svc.Review.CompareVersions(context.Background(), tc.c, tc.name, tc.ver, tc.base)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("compare %s@%s with %q as %s: %v, want %v saying %q", tc.name, tc.ver, tc.base, tc.c.Principal, err, tc.want, tc.says)
		}
	}
}

// TestCompareFindingEvidence: a finding of the same kind, tool and
// pointer as one of the base is carried over, and shows the base's
// evidence when its own differs.
func TestCompareFindingEvidence(t *testing.T) {
	svc := newService(t, storetest.Open(t, store.DialectSQLite))
	hidden := func(desc string) string {
		return `{"tools":[{"name":"stable","description":"` + desc + `","inputSchema":{"type":"object"}}]}`
	}
	submitCmp(t, svc, "1.0.0", hidden(`Never\u200b changes.`), cmpContract1)
	transition(t, svc, registry.ActionApprove, "1.0.0")
	submitCmp(t, svc, "1.0.1", hidden(`Never\u200b changes.`), cmpContract1)
	submitCmp(t, svc, "1.1.0", hidden(`Never changes, or\u200c does it.`), cmpContract1)
	hiddenFinding := func(c *mcpregv1.VersionComparison) *mcpregv1.FindingComparison {
		t.Helper()
		for _, f := range c.GetFindings() {
			if f.GetFinding().GetTool() == "stable" && f.GetFinding().GetPointer() == "/description" {
				return f
			}
		}
		t.Fatalf("no finding on stable's description: %v", c.GetFindings())
		return nil
	}
	same := hiddenFinding(compare(t, svc, "1.0.1", ""))
	if same.GetStatus() != registry.FindingCarriedOver || same.GetBaseEvidence() != "" {
		t.Fatalf("same evidence: %v", same)
	}
	changed := hiddenFinding(compare(t, svc, "1.1.0", ""))
	if changed.GetStatus() != registry.FindingCarriedOver || changed.GetBaseEvidence() == "" ||
		changed.GetBaseEvidence() == changed.GetFinding().GetEvidence() {
		t.Fatalf("changed evidence: %v", changed)
	}
}

// TestCompareSummaries: the batch answers each version's summary as
// CompareVersions does, leaves out what the caller may not read or what
// does not exist, and refuses malformed subjects.
func TestCompareSummaries(t *testing.T) {
	svc := newService(t, storetest.Open(t, store.DialectSQLite))
	submitCmp(t, svc, "1.0.0", cmpTools1, cmpContract1)
	transition(t, svc, registry.ActionApprove, "1.0.0")
	submitCmp(t, svc, "1.1.0", cmpTools2, cmpContract2)
	ctx := context.Background()
	subjects := []string{cmpName + "@1.1.0", cmpName + "@1.0.0", cmpName + "@9.9.9", "io.github.acme/none@1.0.0"}
	sums, err := svc.Review.CompareSummaries(ctx, reviewer, subjects)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[cmpName+"@1.0.0"].GetText() != "first version" ||
		sums[cmpName+"@1.1.0"].GetText() != compare(t, svc, "1.1.0", "").GetSummary().GetText() {
		t.Fatalf("summaries: %v", sums)
	}
	other := &registry.Caller{Principal: "other-ci", Role: registry.RoleOwner, Namespaces: []string{"io.github.other"}}
	if sums, err := svc.Review.CompareSummaries(ctx, other, subjects); err != nil || len(sums) != 0 {
		t.Fatalf("another namespace's owner: %v %v", sums, err)
	}
	if _, err := svc.Review.CompareSummaries(ctx, reviewer, []string{"no-at-sign"}); !errors.Is(err, registry.ErrInvalid) {
		t.Fatalf("malformed subject: %v", err)
	}
}

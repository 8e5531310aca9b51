package web

import (
	"context"
	"encoding/json"
	"net/http"

	apiv0 "github.com/modelcontextprotocol/registry/pkg/api/v0"

	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// reviewView is everything the version review page shows.
type reviewView struct {
	V           *mcpregv1.Version
	Subject     string
	ServerJSON  *apiv0.ServerJSON
	RawServer   string
	Contract    *contract.Normalized
	RawContract string
	// UpstreamMeta is an imported version's upstream _meta, indented.
	UpstreamMeta string
	Tools        []toolView
	Prompts      []promptView
	Resources    []resourceView
	Templates    []resourceView
	Flagged      int
	General      []*mcpregv1.Finding
	Counts       []sevCount
	Widenings    []*mcpregv1.Finding
	Drift        []driftView
	Compare      *compareView
	// Resolved are findings a resolved drift made history (kept, folded).
	Resolved []*mcpregv1.Finding
	// Scans are the version's latest scans, which findings link to.
	Scans []*mcpregv1.Scan
	// Runtime is what runtime gates recorded of calls to this version;
	// RuntimeCounts its counts by outcome, in a fixed order.
	Runtime       *registry.ReceiptSummary
	RuntimeCounts []runtimeCount
	// ReleaseNeedsScan: the version is quarantined for drift and no scan
	// newer than the quarantine matched its pins yet, so Release is not
	// offered (the server refuses it too) and Scan now is.
	ReleaseNeedsScan bool
	Actions          []action
	OwnSubmitted     bool
	Form             decisionForm
	CSRF             string
}

// decisionForm is what a reviewer posted, kept when the service refused
// it so that the page shows it again.
type decisionForm struct {
	Action string
	Reason string
	Acked  map[string]bool
	// DriftID is the drift event the form decided, 0 for transitions.
	DriftID int64
}

// action is one decision form of the page.
type action struct {
	Name, Label, Help string
	Danger            bool
}

// actionsFor lists the transitions the version's state allows.
var actionsFor = map[string][]action{
	"pending_review": {
		{Name: "approve", Label: "Approve", Help: "Approve this version for discovery."},
		{Name: "reject", Label: "Reject", Help: "Reject this version; the owner sees the reason.", Danger: true}},
	"approved": {
		{Name: "quarantine", Label: "Quarantine", Help: "Remove this version from discovery at once.", Danger: true},
		{Name: "revoke", Label: "Revoke", Help: "Retire this version for good.", Danger: true}},
	"quarantined": {
		{Name: "release", Label: "Release", Help: "Return this version to discovery."},
		{Name: "revoke", Label: "Revoke", Help: "Retire this version for good.", Danger: true}},
}

func (a *app) review(w http.ResponseWriter, r *http.Request) {
	a.showReview(w, r, http.StatusOK, "", decisionForm{})
}

// showReview renders the review page, with an error from a refused
// decision and the form as posted.
func (a *app) showReview(w http.ResponseWriter, r *http.Request, status int, msg string, form decisionForm) {
	name, ver := r.PathValue("ns")+"/"+r.PathValue("name"), r.PathValue("version")
	view, err := a.reviewData(r.Context(), viewerFrom(r).caller, name, ver, r.URL.Query().Get("base"))
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	view.Form, view.CSRF = form, viewerFrom(r).session.CSRF
	a.render(w, r, status, "review", page{Title: "Review " + view.Subject, Nav: "queue", Error: msg,
		Notice: doneNotice(r.URL.Query().Get("done")), Body: view})
}

// reviewData loads a version (one GetVersion: snapshot, pins, findings,
// attestations, decisions), its drift events (one list) and its
// comparison with base (empty: the default base).
func (a *app) reviewData(ctx context.Context, c *registry.Caller, name, ver, base string) (*reviewView, error) {
	v, err := a.reviews.GetVersion(ctx, c, name, ver)
	if err != nil {
		return nil, err
	}
	evs, _, err := a.scans.ListDriftEvents(ctx, c, registry.DriftFilter{Name: name, Version: ver}, registry.Page{Size: 50})
	if err != nil {
		return nil, err
	}
	scans, _, err := a.scans.ListScans(ctx, c, name, ver, registry.Page{Size: maxScansShown})
	if err != nil {
		return nil, err
	}
	view := &reviewView{V: v, Subject: name + "@" + ver, RawServer: indent([]byte(v.GetServerJson())),
		RawContract: indent([]byte(v.GetContract())), Counts: countFindings(v.GetFindings()),
		OwnSubmitted: v.GetSubmittedBy() == c.Principal, Scans: scans, ReleaseNeedsScan: releaseNeedsScan(v, scans)}
	view.Actions = offered(actionsFor[v.GetState()], view.OwnSubmitted, view.ReleaseNeedsScan)
	view.ServerJSON = parseServerJSON(v.GetServerJson())
	view.UpstreamMeta = indent([]byte(v.GetUpstream().GetMeta()))
	view.Contract = parseContract(v.GetContract())
	byTool := view.splitFindings(v)
	view.Tools = toolViews(v.GetSnapshot().GetTools(), byTool, riskByTool(view.Contract))
	view.Prompts = promptViews(v.GetSnapshot().GetPrompts())
	view.Resources = resourceViews(v.GetSnapshot().GetResources(), "uri")
	view.Templates = resourceViews(v.GetSnapshot().GetResourceTemplates(), "uriTemplate")
	for _, t := range view.Tools {
		if len(t.Findings) > 0 {
			view.Flagged++
		}
	}
	for _, e := range evs {
		view.Drift = append(view.Drift, driftViewOf(e))
	}
	if view.Compare, err = a.compareData(ctx, c, name, ver, base); err != nil {
		return nil, err
	}
	if view.Runtime, err = a.receipts.Summary(ctx, c, name, ver, maxRejectionsShown); err != nil {
		return nil, err
	}
	for _, o := range []gate.Outcome{gate.OutcomeCommitted, gate.OutcomeFailed, gate.OutcomeUncertain, gate.OutcomeRejected} {
		view.RuntimeCounts = append(view.RuntimeCounts, runtimeCount{Outcome: string(o), N: view.Runtime.Counts[string(o)]})
	}
	return view, nil
}

// runtimeCount is the number of gate receipts with one outcome.
type runtimeCount struct {
	Outcome string
	N       int
}

// maxRejectionsShown bounds the gate rejections the review page lists.
const maxRejectionsShown = 5

// maxScansShown bounds the scans the review page lists.
const maxScansShown = 10

// offered are the decisions of the version's state the signed-in
// principal can take: not Approve for its submitter (four-eyes), not
// Release while a drift quarantine waits for a matching scan. The server
// refuses the hidden ones all the same.
func offered(all []action, ownSubmitted, releaseNeedsScan bool) []action {
	var out []action
	for _, a := range all {
		if (a.Name == "approve" && ownSubmitted) || (a.Name == "release" && releaseNeedsScan) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// releaseNeedsScan: v is quarantined for drift and none of its latest
// scans started after the quarantine and matched the pins (the rule
// release is checked against).
func releaseNeedsScan(v *mcpregv1.Version, scans []*mcpregv1.Scan) bool {
	if v.GetState() != "quarantined" || states.QuarantineKind(v.GetQuarantineKind()) != states.QuarantineDrift {
		return false
	}
	since := v.GetStateChangedAt().AsTime()
	for _, sc := range scans {
		if states.ScanOutcome(sc.GetOutcome()) == states.OutcomeMatch && sc.GetStartedAt().AsTime().After(since) {
			return false
		}
	}
	return true
}

// splitFindings sorts findings into those a resolved drift made history,
// widenings, per-tool findings and the rest (server, contract,
// attestation).
func (view *reviewView) splitFindings(v *mcpregv1.Version) map[string][]*mcpregv1.Finding {
	names := map[string]bool{}
	for _, t := range v.GetSnapshot().GetTools() {
		names[t.GetName()] = true
	}
	byTool := map[string][]*mcpregv1.Finding{}
	for _, f := range v.GetFindings() {
		switch {
		case f.GetResolvedAt() != nil:
			view.Resolved = append(view.Resolved, f)
		case f.GetWideningId() != "":
			view.Widenings = append(view.Widenings, f)
		case f.GetTool() != "" && names[f.GetTool()]:
			byTool[f.GetTool()] = append(byTool[f.GetTool()], f)
		default:
			view.General = append(view.General, f)
		}
	}
	return byTool
}

func parseServerJSON(raw string) *apiv0.ServerJSON {
	var doc apiv0.ServerJSON
	if json.Unmarshal([]byte(raw), &doc) != nil {
		return nil
	}
	return &doc
}

func parseContract(raw string) *contract.Normalized {
	var n contract.Normalized
	if raw == "" || json.Unmarshal([]byte(raw), &n) != nil {
		return nil
	}
	return &n
}

// scanDone prefixes the outcome of a scan in the done parameter.
const scanDone = "scan-"

// doneNotice confirms a decision after its redirect.
func doneNotice(done string) string {
	switch done {
	case "approve":
		return "Version approved."
	case "reject":
		return "Version rejected."
	case "quarantine":
		return "Version quarantined."
	case "release":
		return "Version released."
	case "revoke":
		return "Version revoked."
	case "accept":
		return "Drift accepted: the version is re-pinned to the live snapshot."
	case "decline":
		return "Drift declined."
	case scanDone + string(states.OutcomeMatch):
		return "Scanned: the live server matches the pins."
	case scanDone + string(states.OutcomeDrift):
		return "Scanned: the live server differs from the pins; see Drift."
	}
	return ""
}

package web

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// driftView is one drift event of a version.
type driftView struct {
	E     *mcpregv1.DriftEvent
	Open  bool
	Worst string
}

func driftViewOf(e *mcpregv1.DriftEvent) driftView {
	return driftView{E: e, Open: states.DriftStatus(e.GetStatus()) == states.DriftOpen, Worst: worstChange(e.GetChanges())}
}

var transitions = []registry.Action{registry.ActionApprove, registry.ActionReject, registry.ActionQuarantine,
	registry.ActionRelease, registry.ActionRevoke}

// transition posts approve, reject, quarantine, release or revoke. The
// registry checks role, state, four-eyes, widening acknowledgements and
// attestations; a refusal is shown on the review page with its status.
func (a *app) transition(w http.ResponseWriter, r *http.Request) {
	act := registry.Action(r.PathValue("action"))
	if !slices.Contains(transitions, act) {
		a.notFound(w, r)
		return
	}
	name, ver := r.PathValue("ns")+"/"+r.PathValue("name"), r.PathValue("version")
	reason, acks := r.PostForm.Get("reason"), r.PostForm["ack"]
	_, err := a.reviews.Transition(r.Context(), viewerFrom(r).caller, act, name, ver, reason, acks...)
	if err != nil {
		a.refused(w, r, err, decisionForm{Action: string(act), Reason: reason, Acked: setOf(acks)})
		return
	}
	http.Redirect(w, r, reviewURL(name, ver)+"?done="+string(act), http.StatusSeeOther)
}

// decideDrift accepts (re-pins, four-eyes) or declines a drift event of
// the version named in the path.
func (a *app) decideDrift(w http.ResponseWriter, r *http.Request) {
	decision := r.PathValue("decision")
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if (decision != "accept" && decision != "decline") || err != nil || id <= 0 || id > math.MaxInt32 {
		a.notFound(w, r)
		return
	}
	name, ver := r.PathValue("ns")+"/"+r.PathValue("name"), r.PathValue("version")
	c, reason := viewerFrom(r).caller, r.PostForm.Get("reason")
	form := decisionForm{Action: decision, Reason: reason, DriftID: id}
	if err := a.checkDriftOf(r, c, name, ver, id); err != nil {
		a.refused(w, r, err, form)
		return
	}
	if decision == "accept" {
		_, err = a.scans.AcceptDrift(r.Context(), c, int(id), reason, r.PostForm["ack"]...)
	} else {
		_, err = a.scans.DeclineDrift(r.Context(), c, int(id), reason)
	}
	if err != nil {
		a.refused(w, r, err, form)
		return
	}
	http.Redirect(w, r, reviewURL(name, ver)+"?done="+decision, http.StatusSeeOther)
}

// checkDriftOf makes sure the event belongs to the version the page shows,
// so that a reviewer never decides an event they were not looking at.
func (a *app) checkDriftOf(r *http.Request, c *registry.Caller, name, ver string, id int64) error {
	evs, _, err := a.scans.ListDriftEvents(r.Context(), c, registry.DriftFilter{Name: name, Version: ver}, registry.Page{Size: 200})
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(evs, func(e *mcpregv1.DriftEvent) bool { return e.GetId() == id }) {
		return fmt.Errorf("%w: drift event %d of %s@%s", registry.ErrNotFound, id, name, ver)
	}
	return nil
}

// refused shows the review page again with the service's refusal and the
// form as posted; errors that leave no page to show get the error page.
func (a *app) refused(w http.ResponseWriter, r *http.Request, err error, form decisionForm) {
	status, msg := a.describe(r, err)
	if status == http.StatusNotFound || status >= 500 {
		a.fail(w, r, status, msg)
		return
	}
	a.showReview(w, r, status, msg, form)
}

func setOf(ss []string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// driftFormsView is what the accept and decline forms of one open drift
// event need.
type driftFormsView struct {
	URL       string
	ID        int64
	CSRF      string
	Form      decisionForm
	Decisions []action
}

var driftDecisions = []action{
	{Name: "accept", Label: "Accept drift", Help: "Re-pin the version to the live snapshot and approve it (four-eyes)."},
	{Name: "decline", Label: "Decline drift", Help: "Close the event without re-pinning; the version stays quarantined.", Danger: true},
}

func driftForms(v *reviewView, d driftView) driftFormsView {
	return driftFormsView{URL: reviewURL(v.V.GetName(), v.V.GetVersion()) + "/drift/" + strconv.FormatInt(d.E.GetId(), 10),
		ID: d.E.GetId(), CSRF: v.CSRF, Form: v.Form, Decisions: driftDecisions}
}

// scan reads the version's live server now (any signed-in role may) and
// shows the outcome; drift shows up in the page's Drift section.
func (a *app) scan(w http.ResponseWriter, r *http.Request) {
	name, ver := r.PathValue("ns")+"/"+r.PathValue("name"), r.PathValue("version")
	res, err := a.scans.ScanVersion(r.Context(), viewerFrom(r).caller, name, ver, states.TriggerManual)
	if err == nil && states.ScanOutcome(res.GetScan().GetOutcome()) == states.OutcomeError {
		err = fmt.Errorf("%w: the scan could not read the server (%s): %s", registry.ErrFailedPrecondition,
			res.GetScan().GetErrorKind(), res.GetScan().GetError())
	}
	if err != nil {
		a.refused(w, r, err, decisionForm{Action: "scan"})
		return
	}
	http.Redirect(w, r, reviewURL(name, ver)+"?done="+scanDone+res.GetScan().GetOutcome(), http.StatusSeeOther)
}

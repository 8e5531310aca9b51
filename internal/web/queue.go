package web

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// maxQueue bounds how many items of each kind the queue shows; lists come
// newest first, so the queue reads them all to show the oldest first.
const (
	maxQueue  = 1000
	queuePage = 200
)

type sevCount struct {
	Severity string
	N        int
}

type queueRow struct {
	V      *mcpregv1.Version
	Counts []sevCount
	// Changes summarizes the comparison with the version's base, e.g.
	// "2 tools changed, 1 added; 3 new findings, 1 high".
	Changes string
}

type driftRow struct {
	E       *mcpregv1.DriftEvent
	Worst   string
	Classes string
}

type queueView struct {
	Versions  []queueRow
	Drift     []driftRow
	Truncated bool
}

func (a *app) queue(w http.ResponseWriter, r *http.Request) {
	c := viewerFrom(r).caller
	vs, vMore, err := a.pendingVersions(r.Context(), c)
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	evs, dMore, err := a.openDrift(r.Context(), c)
	if err != nil {
		a.serviceError(w, r, err)
		return
	}
	view := queueView{Truncated: vMore || dMore}
	if view.Versions, err = a.queueRows(r.Context(), c, vs); err != nil {
		a.serviceError(w, r, err)
		return
	}
	for _, e := range evs {
		view.Drift = append(view.Drift, driftRow{E: e, Worst: worstChange(e.GetChanges()), Classes: changeClasses(e.GetChanges())})
	}
	a.render(w, r, http.StatusOK, "queue", page{Title: "Review queue", Nav: "queue", Body: view})
}

// pendingVersions lists every version waiting for review, oldest first.
func (a *app) pendingVersions(ctx context.Context, c *registry.Caller) ([]*mcpregv1.Version, bool, error) {
	f := registry.ServerFilter{State: "pending_review"}
	out, more, err := readAll(func(token string) ([]*mcpregv1.Version, string, error) {
		return a.reviews.ListVersions(ctx, c, "", f, registry.Page{Size: queuePage, Token: token})
	})
	slices.SortStableFunc(out, func(x, y *mcpregv1.Version) int {
		return x.GetSubmittedAt().AsTime().Compare(y.GetSubmittedAt().AsTime())
	})
	return out, more, err
}

// openDrift lists drift events waiting for a decision, oldest first.
func (a *app) openDrift(ctx context.Context, c *registry.Caller) ([]*mcpregv1.DriftEvent, bool, error) {
	out, more, err := readAll(func(token string) ([]*mcpregv1.DriftEvent, string, error) {
		return a.scans.ListDriftEvents(ctx, c, registry.DriftFilter{Status: states.DriftOpen}, registry.Page{Size: queuePage, Token: token})
	})
	slices.Reverse(out)
	return out, more, err
}

// readAll follows page tokens up to maxQueue items; it reports whether
// more were left.
func readAll[T any](list func(token string) ([]T, string, error)) ([]T, bool, error) {
	var out []T
	token := ""
	for {
		items, next, err := list(token)
		if err != nil {
			return nil, false, err
		}
		out = append(out, items...)
		if next == "" {
			return out, false, nil
		}
		if len(out) >= maxQueue {
			return out, true, nil
		}
		token = next
	}
}

// queueRows adds finding counts and comparison summaries to the versions
// with bulk queries rather than some per row.
func (a *app) queueRows(ctx context.Context, c *registry.Caller, vs []*mcpregv1.Version) ([]queueRow, error) {
	rows := make([]queueRow, len(vs))
	subjects := make([]string, len(vs))
	for i, v := range vs {
		rows[i].V = v
		subjects[i] = v.GetName() + "@" + v.GetVersion()
	}
	if len(vs) == 0 {
		return rows, nil
	}
	counts, err := a.scans.FindingCounts(ctx, c, subjects)
	if err != nil {
		return nil, err
	}
	sums, err := a.reviews.CompareSummaries(ctx, c, subjects)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].Counts = countList(counts[subjects[i]])
		rows[i].Changes = sums[subjects[i]].GetText()
	}
	return rows, nil
}

// countList orders counts by severity, highest first, leaving out zeros.
func countList(m map[string]int) []sevCount {
	var out []sevCount
	for _, s := range severities {
		if m[s] > 0 {
			out = append(out, sevCount{s, m[s]})
		}
	}
	return out
}

func countFindings(fs []*mcpregv1.Finding) []sevCount {
	m := map[string]int{}
	for _, f := range fs {
		m[f.GetSeverity()]++
	}
	return countList(m)
}

func severityRank(s string) int {
	if i := slices.Index(severities, s); i >= 0 {
		return len(severities) - i
	}
	return 0
}

func worstChange(cs []*mcpregv1.DriftChange) string {
	worst := ""
	for _, c := range cs {
		if severityRank(c.GetSeverity()) > severityRank(worst) {
			worst = c.GetSeverity()
		}
	}
	return worst
}

// changeClasses names a drift event's classes, e.g.
// "description_changed (get_forecast), tool_added (x)".
func changeClasses(cs []*mcpregv1.DriftChange) string {
	var parts []string
	for _, c := range cs {
		p := c.GetClass()
		if subject := cmp.Or(c.GetTool(), c.GetPrompt(), c.GetResource()); subject != "" {
			p += " (" + subject + ")"
		}
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

package web

import (
	"context"
	"errors"

	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// compareView is the review page's comparison with a base version.
type compareView struct {
	C *mcpregv1.VersionComparison
	// Tools are the changed, added and removed tools; Unchanged the names
	// of the others (folded).
	Tools     []*mcpregv1.ToolComparison
	Unchanged []string
	// Choices are the server's other versions, for the base chooser.
	Choices []string
	// Error says why a chosen base was not used (the default one was).
	Error string
	// New and Carried split the version's findings.
	New, Carried []*mcpregv1.FindingComparison
	Widenings    []*mcpregv1.ContractChange
	Narrowings   []*mcpregv1.ContractChange
	// BaseLabel names the base's side of each change.
	BaseLabel string
}

// maxChoices bounds the versions the base chooser lists.
const maxChoices = 200

// compareData compares name@ver with base (empty: the default base). A
// chosen base that does not exist or is the version itself falls back to
// the default with a message; other errors fail the page.
func (a *app) compareData(ctx context.Context, c *registry.Caller, name, ver, base string) (*compareView, error) {
	cmp, err := a.reviews.CompareVersions(ctx, c, name, ver, base)
	view := &compareView{}
	if base != "" && (errors.Is(err, registry.ErrNotFound) || errors.Is(err, registry.ErrInvalid)) {
		view.Error = "Cannot compare with " + base + ": " + err.Error() + ". Compared with the default base instead."
		cmp, err = a.reviews.CompareVersions(ctx, c, name, ver, "")
	}
	if err != nil {
		return nil, err
	}
	view.C, view.BaseLabel = cmp, "Version "+cmp.GetBase()
	for _, t := range cmp.GetTools() {
		if t.GetStatus() == registry.ToolUnchanged {
			view.Unchanged = append(view.Unchanged, t.GetName())
		} else {
			view.Tools = append(view.Tools, t)
		}
	}
	for _, f := range cmp.GetFindings() {
		if f.GetStatus() == registry.FindingNew {
			view.New = append(view.New, f)
		} else {
			view.Carried = append(view.Carried, f)
		}
	}
	for _, ch := range cmp.GetContract() {
		if ch.GetDirection() == registry.ContractWidening {
			view.Widenings = append(view.Widenings, ch)
		} else {
			view.Narrowings = append(view.Narrowings, ch)
		}
	}
	vs, _, err := a.reviews.ListVersions(ctx, c, name, registry.ServerFilter{}, registry.Page{Size: maxChoices})
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if v.GetVersion() != ver {
			view.Choices = append(view.Choices, v.GetVersion())
		}
	}
	return view, nil
}

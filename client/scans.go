package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// ScanVersion asks the registry to read the version's server live now and
// compare it with the pins. Drift is not an error: check the result's
// Scan.Outcome and DriftEvent. A quarantine-class drift quarantines the
// version; the result's State says what the version is afterwards.
// A scan that finished within the registry's cooldown may answer instead
// (the result's Merged says so).
func (c *Client) ScanVersion(ctx context.Context, name, version string) (*mcpregv1.ScanResult, error) {
	return c.ScanVersionFresh(ctx, name, version, false)
}

// ScanVersionFresh is ScanVersion; with fresh it asks for a new reading
// even when a scan finished within the cooldown (reviewers and admins).
// Over the caller's scan rate or the replica's on-demand cap the error is
// ErrRateLimited.
func (c *Client) ScanVersionFresh(ctx context.Context, name, version string, fresh bool) (*mcpregv1.ScanResult, error) {
	p, err := versionPath(name, version)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.ScanResult{}
	return out, c.call(ctx, http.MethodPost, p+"/scan", nil, &mcpregv1.ScanVersionRequest{Fresh: fresh}, out)
}

// ListScans returns one page of a version's scans, newest first.
func (c *Client) ListScans(ctx context.Context, name, version string, pageSize int32, pageToken string) (*mcpregv1.ListScansResponse, error) {
	p, err := versionPath(name, version)
	if err != nil {
		return nil, err
	}
	q := query{}.page(pageSize, pageToken)
	out := &mcpregv1.ListScansResponse{}
	return out, c.call(ctx, http.MethodGet, p+"/scans", url.Values(q), nil, out)
}

// ListDriftEvents returns one page of drift events, newest first, filtered
// by req's name, version and status (open, accepted, declined, warned or
// resolved).
func (c *Client) ListDriftEvents(ctx context.Context, req *mcpregv1.ListDriftEventsRequest) (*mcpregv1.ListDriftEventsResponse, error) {
	if req.GetVersion() != "" && req.GetName() == "" {
		return nil, fmt.Errorf("%w: a drift event filter by version needs the server name too", ErrInvalid)
	}
	q := query{}.page(req.GetPageSize(), req.GetPageToken()).
		str("name", req.GetName()).str("version", req.GetVersion()).str("status", req.GetStatus())
	out := &mcpregv1.ListDriftEventsResponse{}
	return out, c.call(ctx, http.MethodGet, "/v1/drift-events", url.Values(q), nil, out)
}

// AcceptDrift re-pins the drift event's version to the drifted snapshot (a
// new pin revision) and approves it. Four-eyes: not by the submitter; like
// approval, acks must cover the contract's widenings. The reason is
// required and recorded in the audit log.
func (c *Client) AcceptDrift(ctx context.Context, id int64, reason string, acks ...string) (*mcpregv1.Version, error) {
	return c.decideDrift(ctx, "accept", id, reason, acks)
}

// DeclineDrift closes a drift event without re-pinning; the version stays
// quarantined. The reason is required and recorded in the audit log.
func (c *Client) DeclineDrift(ctx context.Context, id int64, reason string) (*mcpregv1.Version, error) {
	return c.decideDrift(ctx, "decline", id, reason, nil)
}

func (c *Client) decideDrift(ctx context.Context, decision string, id int64, reason string, acks []string) (*mcpregv1.Version, error) {
	if id <= 0 {
		return nil, fmt.Errorf("%w: drift event id %d: want a positive number", ErrInvalid, id)
	}
	if reason == "" {
		return nil, fmt.Errorf("%w: a reason is required to %s drift event %d", ErrInvalid, decision, id)
	}
	p := "/v1/drift-events/" + strconv.FormatInt(id, 10) + "/" + decision
	out := &mcpregv1.Version{}
	return out, c.call(ctx, http.MethodPost, p, nil, &mcpregv1.DriftDecisionRequest{Reason: reason, AcknowledgedWidenings: acks}, out)
}

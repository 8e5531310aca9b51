package client

import (
	"context"
	"net/http"
	"net/url"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// AuditCheckpointPath is where the registry serves its latest signed audit
// checkpoint.
const AuditCheckpointPath = "/.well-known/mcpreg/audit-checkpoint"

// ListAuditCheckpoints lists the signed audit checkpoints, newest first.
func (c *Client) ListAuditCheckpoints(ctx context.Context, req *mcpregv1.ListAuditCheckpointsRequest) (*mcpregv1.ListAuditCheckpointsResponse, error) {
	q := query{}.page(req.GetPageSize(), req.GetPageToken())
	out := &mcpregv1.ListAuditCheckpointsResponse{}
	return out, c.call(ctx, http.MethodGet, "/v1/audit/checkpoints", url.Values(q), nil, out)
}

// LatestAuditCheckpoint returns the latest signed checkpoint note as
// served, unverified: open it with auditchain.Open.
func (c *Client) LatestAuditCheckpoint(ctx context.Context) ([]byte, error) {
	return c.getRaw(ctx, AuditCheckpointPath, nil)
}

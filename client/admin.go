package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// ListAuditEvents returns one page of the audit log, oldest first.
func (c *Client) ListAuditEvents(ctx context.Context, req *mcpregv1.ListAuditEventsRequest) (*mcpregv1.ListAuditEventsResponse, error) {
	q := query{}.page(req.GetPageSize(), req.GetPageToken()).
		str("subject", req.GetSubject()).str("actor", req.GetActor()).str("action", req.GetAction())
	out := &mcpregv1.ListAuditEventsResponse{}
	return out, c.call(ctx, http.MethodGet, "/v1/audit/events", url.Values(q), nil, out)
}

// VerifyAuditChain asks the service to walk the audit chain. A broken chain
// is not an error: check the response's Ok.
func (c *Client) VerifyAuditChain(ctx context.Context) (*mcpregv1.VerifyAuditChainResponse, error) {
	out := &mcpregv1.VerifyAuditChainResponse{}
	return out, c.call(ctx, http.MethodGet, "/v1/audit/verify", nil, nil, out)
}

// WhoAmI describes the principal holding the client's token.
func (c *Client) WhoAmI(ctx context.Context) (*mcpregv1.Principal, error) {
	out := &mcpregv1.Principal{}
	return out, c.call(ctx, http.MethodGet, "/v1/whoami", nil, nil, out)
}

// CreateToken creates a token (admin only); the secret is in the response
// and never returned again.
func (c *Client) CreateToken(ctx context.Context, req *mcpregv1.CreateTokenRequest) (*mcpregv1.CreateTokenResponse, error) {
	out := &mcpregv1.CreateTokenResponse{}
	return out, c.call(ctx, http.MethodPost, "/v1/tokens", nil, req, out)
}

// ListTokens lists tokens, of one principal when req.Principal is set (admin
// only).
func (c *Client) ListTokens(ctx context.Context, req *mcpregv1.ListTokensRequest) (*mcpregv1.ListTokensResponse, error) {
	q := query{}.str("principal", req.GetPrincipal())
	out := &mcpregv1.ListTokensResponse{}
	return out, c.call(ctx, http.MethodGet, "/v1/tokens", url.Values(q), nil, out)
}

// RevokeToken revokes the token with public id id at once (admin only).
func (c *Client) RevokeToken(ctx context.Context, id, reason string) (*mcpregv1.Token, error) {
	if !plainSegment(id) {
		return nil, fmt.Errorf("%w: token id %q", ErrInvalid, id)
	}
	out := &mcpregv1.Token{}
	body := &mcpregv1.RevokeTokenRequest{Reason: reason}
	return out, c.call(ctx, http.MethodPost, "/v1/tokens/"+url.PathEscape(id)+"/revoke", nil, body, out)
}

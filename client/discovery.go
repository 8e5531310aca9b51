package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
	"github.com/mcpreg/mcpreg/signing"
)

// DiscoveryKeysPath is where the registry publishes its discovery keys.
const DiscoveryKeysPath = "/.well-known/mcpreg/discovery-keys.json"

// ResolveDiscovery returns one page of the discovery document as the DSSE
// envelope JSON the service sent, unverified: check it with signing.Verify
// (package hostclient does, and more).
func (c *Client) ResolveDiscovery(ctx context.Context, req *mcpregv1.ResolveServersRequest) ([]byte, error) {
	q := query{}.str("name", req.GetName()).str("version", req.GetVersion()).
		str("namespace", req.GetNamespace()).str("owner", req.GetOwner()).
		page(req.GetPageSize(), req.GetPageToken())
	return c.getRaw(ctx, "/v1/discovery/servers", url.Values(q))
}

// CheckConnection reports what a host observed on a server and returns the
// registry's verdict, per tool.
func (c *Client) CheckConnection(ctx context.Context, req *mcpregv1.CheckConnectionRequest) (*mcpregv1.CheckConnectionResponse, error) {
	out := &mcpregv1.CheckConnectionResponse{}
	return out, c.call(ctx, http.MethodPost, "/v1/discovery/check", nil, req, out)
}

// DiscoveryKeys returns the keys the registry publishes for its discovery
// documents. They come over the same connection as the documents, so a
// host should pin the keys it trusts out of band instead.
func (c *Client) DiscoveryKeys(ctx context.Context) ([]signing.PublishedKey, error) {
	data, err := c.getRaw(ctx, DiscoveryKeysPath, nil)
	if err != nil {
		return nil, err
	}
	var body struct {
		Keys []signing.PublishedKey `json:"keys"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return nil, fmt.Errorf("GET %s: decoding response: %w", DiscoveryKeysPath, err)
	}
	return body.Keys, nil
}

// getRaw GETs path and returns the body of a successful response as sent.
func (c *Client) getRaw(ctx context.Context, path string, query url.Values) ([]byte, error) {
	req, err := c.newRequest(ctx, http.MethodGet, path, query, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, newAPIError(resp)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading response: %w", path, err)
	}
	if int64(len(data)) > c.maxResponse {
		return nil, fmt.Errorf("GET %s: %w: over %d bytes", path, ErrResponseTooLarge, c.maxResponse)
	}
	return data, nil
}

// PostReceipts sends a batch of runtime-gate receipts (host tokens).
func (c *Client) PostReceipts(ctx context.Context, req *mcpregv1.PostReceiptsRequest) (*mcpregv1.PostReceiptsResponse, error) {
	out := &mcpregv1.PostReceiptsResponse{}
	return out, c.call(ctx, http.MethodPost, "/v1/receipts", nil, req, out)
}

// ListReceipts returns one page of receipts, newest first, filtered by
// req's server, version and outcome (reviewers and admins).
func (c *Client) ListReceipts(ctx context.Context, req *mcpregv1.ListReceiptsRequest) (*mcpregv1.ListReceiptsResponse, error) {
	q := query{}.page(req.GetPageSize(), req.GetPageToken()).str("server", req.GetServer()).
		str("version", req.GetVersion()).str("outcome", req.GetOutcome())
	out := &mcpregv1.ListReceiptsResponse{}
	return out, c.call(ctx, http.MethodGet, "/v1/receipts", url.Values(q), nil, out)
}

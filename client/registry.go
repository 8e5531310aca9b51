package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// Action is a lifecycle transition of a version.
type Action string

// The transitions the service knows (README.md, "Live scanning and drift" and the lifecycle).
const (
	ActionApprove    Action = "approve"
	ActionReject     Action = "reject"
	ActionQuarantine Action = "quarantine"
	ActionRelease    Action = "release"
	ActionRevoke     Action = "revoke"
)

// Actions lists every Action in lifecycle order.
var Actions = []Action{ActionApprove, ActionReject, ActionQuarantine, ActionRelease, ActionRevoke}

func (a Action) valid() bool {
	for _, known := range Actions {
		if a == known {
			return true
		}
	}
	return false
}

// SubmitVersion submits a version for review. The documents travel as text
// and are read strictly by the service; the client never parses them.
func (c *Client) SubmitVersion(ctx context.Context, req *mcpregv1.SubmitVersionRequest) (*mcpregv1.Version, error) {
	out := &mcpregv1.Version{}
	return out, c.call(ctx, http.MethodPost, "/v1/versions", nil, req, out)
}

// ListServers returns one page of servers.
func (c *Client) ListServers(ctx context.Context, req *mcpregv1.ListServersRequest) (*mcpregv1.ListServersResponse, error) {
	q := query{}.page(req.GetPageSize(), req.GetPageToken()).
		str("state", req.GetState()).str("owner", req.GetOwner()).
		str("namespace", req.GetNamespace()).str("query", req.GetQuery())
	out := &mcpregv1.ListServersResponse{}
	return out, c.call(ctx, http.MethodGet, "/v1/servers", url.Values(q), nil, out)
}

// GetServer returns one server by name (NAMESPACE/NAME).
func (c *Client) GetServer(ctx context.Context, name string) (*mcpregv1.Server, error) {
	p, err := serverPath(name)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.Server{}
	return out, c.call(ctx, http.MethodGet, p, nil, nil, out)
}

// ListVersions returns one page of versions of req.Name, or of all servers
// when req.Name is empty.
func (c *Client) ListVersions(ctx context.Context, req *mcpregv1.ListVersionsRequest) (*mcpregv1.ListVersionsResponse, error) {
	p := "/v1/versions"
	if req.GetName() != "" {
		sp, err := serverPath(req.GetName())
		if err != nil {
			return nil, err
		}
		p = sp + "/versions"
	}
	q := query{}.page(req.GetPageSize(), req.GetPageToken()).
		str("state", req.GetState()).str("owner", req.GetOwner()).
		str("namespace", req.GetNamespace()).str("query", req.GetQuery())
	out := &mcpregv1.ListVersionsResponse{}
	return out, c.call(ctx, http.MethodGet, p, url.Values(q), nil, out)
}

// GetVersion returns one version with its tool snapshot, pins and decisions.
func (c *Client) GetVersion(ctx context.Context, name, version string) (*mcpregv1.Version, error) {
	p, err := versionPath(name, version)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.Version{}
	return out, c.call(ctx, http.MethodGet, p, nil, nil, out)
}

// CompareVersions compares name@version with base, or, when base is
// empty, with the highest version below it that was approved and is not
// revoked: what its reviewer sees.
func (c *Client) CompareVersions(ctx context.Context, name, version, base string) (*mcpregv1.VersionComparison, error) {
	p, err := versionPath(name, version)
	if err != nil {
		return nil, err
	}
	if base != "" && !plainSegment(base) {
		return nil, fmt.Errorf("%w: base %q: want a version without \"/\"", ErrInvalid, base)
	}
	out := &mcpregv1.VersionComparison{}
	return out, c.call(ctx, http.MethodGet, p+"/compare", url.Values(query{}.str("base", base)), nil, out)
}

// Transition moves a version through its lifecycle. The reason is required
// and recorded in the audit log; acks acknowledge contract widenings (by
// their widening ids) when approving.
func (c *Client) Transition(ctx context.Context, action Action, name, version, reason string, acks ...string) (*mcpregv1.Version, error) {
	if !action.valid() {
		return nil, fmt.Errorf("%w: unknown action %q: want one of %v", ErrInvalid, action, Actions)
	}
	if reason == "" {
		return nil, fmt.Errorf("%w: a reason is required to %s a version", ErrInvalid, action)
	}
	p, err := versionPath(name, version)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.Version{}
	body := &mcpregv1.TransitionRequest{Reason: reason, AcknowledgedWidenings: acks}
	return out, c.call(ctx, http.MethodPost, p+"/"+string(action), nil, body, out)
}

// Repin moves a version pinned under mcpreg-pin-v1 to mcpreg-pin-v2, with
// the prompts and resources of its latest scan. A reason is required.
func (c *Client) Repin(ctx context.Context, name, version, reason string) (*mcpregv1.Version, error) {
	if reason == "" {
		return nil, fmt.Errorf("%w: a reason is required to re-pin a version", ErrInvalid)
	}
	p, err := versionPath(name, version)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.Version{}
	return out, c.call(ctx, http.MethodPost, p+"/repin", nil, &mcpregv1.RepinVersionRequest{Reason: reason}, out)
}

// GetServerPolicy returns what a server's versions must satisfy.
func (c *Client) GetServerPolicy(ctx context.Context, name string) (*mcpregv1.ServerPolicy, error) {
	p, err := serverPath(name)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.ServerPolicy{}
	return out, c.call(ctx, http.MethodGet, p+"/policy", nil, nil, out)
}

// UpdateServerPolicy replaces a server's policy (admin or reviewer).
func (c *Client) UpdateServerPolicy(ctx context.Context, name string, policy *mcpregv1.ServerPolicy, reason string) (*mcpregv1.ServerPolicy, error) {
	p, err := serverPath(name)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.ServerPolicy{}
	body := &mcpregv1.UpdateServerPolicyRequest{Policy: policy, Reason: reason}
	return out, c.call(ctx, http.MethodPut, p+"/policy", nil, body, out)
}

// ConfirmServerPolicy puts a server's pending policy change in force (a
// reviewer or admin other than its proposer). digest names the pending
// change as GetServerPolicy shows it.
func (c *Client) ConfirmServerPolicy(ctx context.Context, name, digest, reason string) (*mcpregv1.ServerPolicy, error) {
	p, err := serverPath(name)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.ServerPolicy{}
	body := &mcpregv1.ConfirmServerPolicyRequest{Digest: digest, Reason: reason}
	return out, c.call(ctx, http.MethodPost, p+"/policy:confirm", nil, body, out)
}

// SetScanCredential stores the credential set label of server name
// (admins). in's Name and Label are taken from the arguments.
func (c *Client) SetScanCredential(ctx context.Context, name, label string, in *mcpregv1.SetScanCredentialRequest) (*mcpregv1.ScanCredential, error) {
	p, err := credentialPath(name, label)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.ScanCredential{}
	body := &mcpregv1.SetScanCredentialRequest{Headers: in.GetHeaders(), Env: in.GetEnv(), Scopes: in.GetScopes(),
		Origin: in.GetOrigin(), Package: in.GetPackage()}
	return out, c.call(ctx, http.MethodPut, p, nil, body, out)
}

// ListScanCredentials names the credential sets of server name.
func (c *Client) ListScanCredentials(ctx context.Context, name string) (*mcpregv1.ListScanCredentialsResponse, error) {
	p, err := serverPath(name)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.ListScanCredentialsResponse{}
	return out, c.call(ctx, http.MethodGet, p+"/scan-credentials", nil, nil, out)
}

// DeleteScanCredential removes the credential set label of server name.
func (c *Client) DeleteScanCredential(ctx context.Context, name, label string) (*mcpregv1.ScanCredential, error) {
	p, err := credentialPath(name, label)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.ScanCredential{}
	return out, c.call(ctx, http.MethodDelete, p, nil, nil, out)
}

func credentialPath(name, label string) (string, error) {
	p, err := serverPath(name)
	if err != nil {
		return "", err
	}
	if label == "" || !plainSegment(label) {
		return "", fmt.Errorf("%w: credential label %q: want letters, digits, '.', '_' or '-'", ErrInvalid, label)
	}
	return p + "/scan-credentials/" + url.PathEscape(label), nil
}

// SetStatus deprecates (status "deprecated", with a message) or
// undeprecates (status "active") one version, or every version of the
// server when version is empty.
func (c *Client) SetStatus(ctx context.Context, name, version, status, message string) ([]*mcpregv1.Version, error) {
	if version == "" {
		version = "-"
	}
	p, err := versionPath(name, version)
	if err != nil {
		return nil, err
	}
	out := &mcpregv1.SetVersionStatusResponse{}
	err = c.call(ctx, http.MethodPost, p+"/status", nil, &mcpregv1.SetVersionStatusRequest{Status: status, Message: message}, out)
	return out.GetVersions(), err
}

package hostclient

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/scan"
)

// Statuses of a configured server, as mcpreg host check prints them.
const (
	StatusApproved    = "approved"                // matches an entry and its pins
	StatusBlocked     = "drifted (blocked)"       // Gate said Block
	StatusPartial     = "drifted (tools blocked)" // Gate said Partial
	StatusWarning     = "drifted (warning)"       // Gate said Warn
	StatusUnapproved  = "unapproved"              // no matching entry: not contacted
	StatusUnreachable = "unreachable"             // reading it failed
)

// CheckOptions configure CheckServers.
type CheckOptions struct {
	Policy Policy
	// Limits bound each server's read; Limits.Deadline is its timeout.
	Limits scan.Limits
	// Path is the PATH of stdio servers whose env sets none; "" means
	// scan.DefaultPath.
	Path string
	// Parallel is how many servers are read at once; 0 or less means 4.
	Parallel int
}

// ServerResult is the outcome for one configured server.
type ServerResult struct {
	Server    string `json:"server"`
	Transport string `json:"transport"`
	Name      string `json:"registryName,omitempty"`
	Version   string `json:"registryVersion,omitempty"`
	MatchedBy string `json:"matchedBy,omitempty"`
	Status    string `json:"status"`
	Detail    string `json:"detail"`
	// BlockedTools are the served tools the host must not expose (changed
	// or added against the signed pins), also when the server is Partial.
	BlockedTools []string  `json:"blockedTools,omitempty"`
	Decision     *Decision `json:"decision,omitempty"`
	// RegistryStatus says, for an unapproved server whose configuration
	// name is a registry name the allowlist lacks, why the registry does not
	// let this host use it: quarantined, revoked or not_approved (the
	// registry's words are in Detail). Empty when the registry knows no
	// version this host could use, or was not asked.
	RegistryStatus string `json:"registryStatus,omitempty"`
}

// Exposable reports whether a host may expose the server at all: approved,
// drift that is only reported, or drift that blocks some of its tools
// (then only the tools Decision.ToolAllowed allows).
func (r ServerResult) Exposable() bool {
	return r.Status == StatusApproved || r.Status == StatusWarning || r.Status == StatusPartial
}

// CheckServers checks every configured server against doc (from Resolve):
// match, read it (stdio or HTTP, through package scan), gate it. A server
// without a matching entry is neither started nor contacted. Results are in
// the order of servers.
func (c *Client) CheckServers(ctx context.Context, doc *discovery.Document, servers []ServerConfig, o CheckOptions) []ServerResult {
	out := make([]ServerResult, len(servers))
	n := o.Parallel
	if n <= 0 {
		n = 4
	}
	limit := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			limit <- struct{}{}
			defer func() { <-limit }()
			out[i] = c.CheckServer(ctx, doc, s, o)
		})
	}
	wg.Wait()
	return out
}

// CheckServer checks one configured server; see CheckServers.
func (c *Client) CheckServer(ctx context.Context, doc *discovery.Document, s ServerConfig, o CheckOptions) ServerResult {
	res := ServerResult{Server: s.Name, Transport: s.Transport()}
	m := Match(doc, s)
	if m.Entry == nil {
		res.Status, res.Detail = StatusUnapproved, m.Detail
		c.explainUnapproved(ctx, doc, s, &res)
		return res
	}
	res.Name, res.Version, res.MatchedBy = m.Entry.Name, m.Entry.Version, m.By
	snap, err := readServer(ctx, s, o)
	if err != nil {
		res.Status, res.Detail = StatusUnreachable, joinDetail(err.Error(), m.Detail)
		return res
	}
	d := c.Gate(ctx, *m.Entry, snap, o.Policy)
	res.Decision, res.BlockedTools = &d, d.BlockedTools()
	res.Status, res.Detail = statusOf(d.Verdict), joinDetail(d.Reason, m.Detail)
	return res
}

// registryName is the shape of a registry server name.
var registryName = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

// explainUnapproved asks the registry why a server named by its registry
// name is not in the allowlist (quarantined since when, revoked, not
// approved), so that the host's operator need not ask a reviewer. The
// server itself is not contacted. A registry that cannot answer leaves
// the verdict as it is and says so.
func (c *Client) explainUnapproved(ctx context.Context, doc *discovery.Document, s ServerConfig, res *ServerResult) {
	if !registryName.MatchString(s.Name) || slices.ContainsFunc(doc.Servers, func(e discovery.Entry) bool { return e.Name == s.Name }) {
		return
	}
	resp, err := c.Check(ctx, s.Name, "", []byte(`{"tools":[]}`), nil)
	switch {
	case err != nil:
		res.Detail = joinDetail(res.Detail, "the registry could not say why: "+err.Error())
	case resp.GetStatus() != "":
		res.RegistryStatus = resp.GetStatus()
		res.Detail = joinDetail(res.Detail, "registry: "+resp.GetMessage())
	}
}

func statusOf(v Verdict) string {
	switch v {
	case Allow:
		return StatusApproved
	case Warn:
		return StatusWarning
	case Partial:
		return StatusPartial
	}
	return StatusBlocked
}

func joinDetail(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "; ")
}

// readServer connects to s and reads its tools.
func readServer(ctx context.Context, s ServerConfig, o CheckOptions) (*scan.Snapshot, error) {
	target, allow, err := s.target(o.Path)
	if err != nil {
		return nil, err
	}
	r, err := scan.NewReader(o.Limits, allow)
	if err != nil {
		return nil, err
	}
	snap, err := r.Read(ctx, target)
	if err == nil {
		return snap, nil
	}
	if s.Type == "sse" {
		err = fmt.Errorf("%w (type sse: the reader speaks Streamable HTTP only)", err)
	}
	if line, _, _ := strings.Cut(strings.TrimSpace(snap.Stderr), "\n"); line != "" {
		err = fmt.Errorf("%w (stderr: %s)", err, line)
	}
	return nil, err
}

// target is how to reach s. An HTTP server's reader may dial what its URL
// names, loopback and private addresses included (the host's own
// configuration says to), and nothing else restricted.
func (s ServerConfig) target(path string) (scan.Target, scan.AllowList, error) {
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil {
			return nil, scan.AllowList{}, fmt.Errorf("url %q: %w", s.URL, err)
		}
		allow, err := scan.ParseAllowList(u.Hostname())
		return scan.HTTPTarget{URL: s.URL, Headers: s.Headers}, allow, err
	}
	env := map[string]string{}
	if path != "" {
		env["PATH"] = path
	}
	maps.Copy(env, s.Env)
	return scan.StdioTarget{Command: s.Command, Args: s.Args, Env: env}, scan.AllowList{}, nil
}

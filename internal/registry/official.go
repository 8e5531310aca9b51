package registry

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
)

// The official MCP registry API (/v0.1) served from the discovery index:
// approved, non-quarantined versions only, in the official shapes, with
// mcpreg's additions under _meta["io.mcpreg/registry"].

// OfficialMetaKey is the official registry's own _meta member.
const OfficialMetaKey = "io.modelcontextprotocol.registry/official"

// Official list limits, as the official registry has them.
const (
	OfficialDefaultLimit = 30
	OfficialMaxLimit     = 100
)

// OfficialQuery is a /v0.1/servers query, its parameters parsed and
// checked by the transport.
type OfficialQuery struct {
	// Cursor is a NextCursor this registry issued, or "" for the start.
	Cursor string
	// Limit is the most servers in the answer: 0 is OfficialDefaultLimit,
	// and more than OfficialMaxLimit is OfficialMaxLimit.
	Limit int
	// Search keeps servers whose name contains it, ignoring case.
	Search string
	// Version is "latest", an exact version, or "" for every version.
	Version string
	// UpdatedSince keeps versions whose state changed after it, unless zero.
	UpdatedSince time.Time
}

// OfficialList is a ServerList.
type OfficialList struct {
	Servers  []OfficialServer `json:"servers"`
	Metadata OfficialMetadata `json:"metadata"`
}

// OfficialMetadata pages a ServerList.
type OfficialMetadata struct {
	NextCursor string `json:"nextCursor,omitempty"`
	Count      int    `json:"count"`
}

// OfficialServer is a ServerResponse: the server.json as submitted and the
// registry's metadata.
type OfficialServer struct {
	Server json.RawMessage `json:"server"`
	Meta   map[string]any  `json:"_meta"`
}

// officialStatus is the official registry's metadata of a version.
type officialStatus struct {
	Status      string    `json:"status"`
	PublishedAt time.Time `json:"publishedAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	IsLatest    bool      `json:"isLatest"`
}

// mcpregMeta is what mcpreg adds: pins, digests, contract hash,
// attestation summary, approval.
type mcpregMeta struct {
	Pins         discovery.Pins          `json:"pins"`
	Packages     []discovery.Package     `json:"packages,omitempty"`
	ContractHash string                  `json:"contractHash"`
	Attestations []discovery.Attestation `json:"attestations"`
	Approval     discovery.Approval      `json:"approval"`
}

// officialCaller is who reads /v0.1: a token's caller, or nil when the API
// is public and no token was given (then only versions whose contract does
// not restrict environments are served).
func officialVisibility(c *Caller) ([]string, bool, error) {
	if c == nil {
		return nil, false, nil
	}
	if err := mayDiscover(c); err != nil {
		return nil, false, err
	}
	return c.EnvLabels, c.Role != RoleHost, nil
}

// OfficialServers answers GET /v0.1/servers.
func (s *Discovery) OfficialServers(ctx context.Context, c *Caller, q OfficialQuery) (*OfficialList, error) {
	labels, all, err := officialVisibility(c)
	if err != nil {
		return nil, err
	}
	limit := OfficialDefaultLimit
	if q.Limit > 0 {
		limit = min(q.Limit, OfficialMaxLimit)
	}
	afterName, afterVersion := "", ""
	if q.Cursor != "" {
		if afterName, afterVersion, err = parseOfficialCursor(q.Cursor); err != nil {
			return nil, err
		}
	}
	idx, err := s.discoveryIndex(ctx)
	if err != nil {
		return nil, err
	}
	out := &OfficialList{Servers: []OfficialServer{}}
	search := strings.ToLower(strings.TrimSpace(q.Search))
	for i := range idx.servers {
		ds := &idx.servers[i]
		if ds.name < afterName || (search != "" && !strings.Contains(strings.ToLower(ds.name), search)) {
			continue
		}
		latest := ds.pick("", labels, all)
		for _, v := range ds.versions {
			if !all && !v.visibleTo(labels) {
				continue
			}
			if ds.name == afterName && !higherVersion(afterVersion, v.entry.Version) {
				continue // at or before the cursor (versions run highest first)
			}
			if (q.Version == "latest" && v != latest) || (q.Version != "" && q.Version != "latest" && v.entry.Version != q.Version) {
				continue
			}
			if !q.UpdatedSince.IsZero() && !v.stateChanged.After(q.UpdatedSince) {
				continue
			}
			if len(out.Servers) == limit {
				last := out.Servers[len(out.Servers)-1]
				out.Metadata.NextCursor = officialCursor(last)
				out.Metadata.Count = len(out.Servers)
				return out, nil
			}
			out.Servers = append(out.Servers, v.official(v == latest))
		}
	}
	out.Metadata.Count = len(out.Servers)
	return out, nil
}

// OfficialVersions answers GET /v0.1/servers/{serverName}/versions.
func (s *Discovery) OfficialVersions(ctx context.Context, c *Caller, name string) (*OfficialList, error) {
	out := &OfficialList{Servers: []OfficialServer{}}
	err := s.officialServer(ctx, c, name, func(ds *discoveryServer, visible func(*discoveryVersion) bool, latest *discoveryVersion) {
		for _, v := range ds.versions {
			if visible(v) {
				out.Servers = append(out.Servers, v.official(v == latest))
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if len(out.Servers) == 0 {
		return nil, notFoundf("server %s", name)
	}
	out.Metadata.Count = len(out.Servers)
	return out, nil
}

// OfficialVersion answers GET /v0.1/servers/{serverName}/versions/{version}
// ("latest" or an exact version).
func (s *Discovery) OfficialVersion(ctx context.Context, c *Caller, name, ver string) (*OfficialServer, error) {
	var out *OfficialServer
	err := s.officialServer(ctx, c, name, func(ds *discoveryServer, visible func(*discoveryVersion) bool, latest *discoveryVersion) {
		for _, v := range ds.versions {
			if visible(v) && (v.entry.Version == ver || (ver == "latest" && v == latest)) {
				o := v.official(v == latest)
				out = &o
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, notFoundf("server %s version %s", name, ver)
	}
	return out, nil
}

// officialServer calls fn with the named server of the index, what the
// caller may see of it and its latest visible version; fn is not called
// for a server with no approved version.
func (s *Discovery) officialServer(ctx context.Context, c *Caller, name string,
	fn func(ds *discoveryServer, visible func(*discoveryVersion) bool, latest *discoveryVersion)) error {
	labels, all, err := officialVisibility(c)
	if err != nil {
		return err
	}
	idx, err := s.discoveryIndex(ctx)
	if err != nil {
		return err
	}
	if i, ok := idx.byName[name]; ok {
		ds := &idx.servers[i]
		fn(ds, func(v *discoveryVersion) bool { return all || v.visibleTo(labels) }, ds.pick("", labels, all))
	}
	return nil
}

func officialCursor(o OfficialServer) string {
	var s struct{ Name, Version string }
	_ = json.Unmarshal(o.Server, &s)
	return base64.RawURLEncoding.EncodeToString([]byte(s.Name + "\x00" + s.Version))
}

func parseOfficialCursor(c string) (string, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	name, ver, ok := strings.Cut(string(raw), "\x00")
	if err != nil || !ok || name == "" {
		return "", "", invalidf("cursor %q is not one this registry issued", c)
	}
	return name, ver, nil
}

// official renders the ServerResponse of a version. The rendering is kept:
// the index is immutable.
func (v *discoveryVersion) official(latest bool) OfficialServer {
	return OfficialServer{Server: v.serverJSON, Meta: map[string]any{
		OfficialMetaKey: officialStatus{Status: "active", PublishedAt: v.publishedAt, UpdatedAt: v.stateChanged, IsLatest: latest},
		RegistryMetaKey: v.mcpreg(),
	}}
}

func (v *discoveryVersion) mcpreg() *mcpregMeta {
	v.metaOnce.Do(func() {
		v.meta = &mcpregMeta{Pins: v.entry.Pins, Packages: v.entry.Packages, ContractHash: v.entry.Pins.ContractHash,
			Attestations: v.entry.Attestations, Approval: v.entry.Approval}
	})
	return v.meta
}

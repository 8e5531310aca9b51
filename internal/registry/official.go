package registry

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
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
	// Cursor is where the list goes on: "name:version" (a NextCursor) or
	// a name; "" for the start.
	Cursor string
	// Limit is the most servers in the answer: 0 is OfficialDefaultLimit,
	// and more than OfficialMaxLimit is OfficialMaxLimit.
	Limit int
	// Search keeps servers whose name contains it, ignoring case.
	Search string
	// Version is "latest", an exact version, or "" for every version.
	Version string
	// UpdatedSince keeps versions whose state or status changed after
	// it, unless zero; it lists deleted versions too.
	UpdatedSince time.Time
	// IncludeDeleted lists revoked and quarantined versions, as deleted.
	IncludeDeleted bool
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
	Status          string    `json:"status"`
	StatusChangedAt time.Time `json:"statusChangedAt"`
	StatusMessage   *string   `json:"statusMessage,omitempty"`
	PublishedAt     time.Time `json:"publishedAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
	IsLatest        bool      `json:"isLatest"`
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

// OfficialServers answers GET /v0.1/servers as the official registry
// does: one record per version, ordered by name then version text, both
// ascending; the cursor names the last record of the previous page
// ("name:version", or a name alone) and the list goes on after it, so a
// cursor this registry never issued seeks like any other (a name before
// every server starts from the beginning). Deleted versions (revoked, and
// quarantined ones) are listed only with IncludeDeleted.
func (s *Discovery) OfficialServers(ctx context.Context, c *Caller, q OfficialQuery) (*OfficialList, error) {
	labels, all, err := officialVisibility(c)
	if err != nil {
		return nil, err
	}
	limit := OfficialDefaultLimit
	if q.Limit > 0 {
		limit = min(q.Limit, OfficialMaxLimit)
	}
	idx, err := s.discoveryIndex(ctx)
	if err != nil {
		return nil, err
	}
	afterName, afterVersion, nameOnly := parseOfficialCursor(q.Cursor)
	include := q.IncludeDeleted || !q.UpdatedSince.IsZero()
	search := strings.ToLower(strings.TrimSpace(q.Search))
	out := &OfficialList{Servers: []OfficialServer{}}
	more := false
	keep := func(name, ver string, updated time.Time, latest bool) bool {
		if search != "" && !strings.Contains(strings.ToLower(name), search) {
			return false
		}
		if (q.Version == "latest" && !latest) || (q.Version != "" && q.Version != "latest" && ver != q.Version) {
			return false
		}
		return q.UpdatedSince.IsZero() || updated.After(q.UpdatedSince)
	}
	after := func(name, ver string) bool {
		if q.Cursor == "" {
			return true
		}
		if nameOnly {
			return name > afterName
		}
		return name > afterName || (name == afterName && ver > afterVersion)
	}
	// Seek both sorted lists to the cursor, then merge them.
	first, _ := idx.servers.search(afterName)
	next, stop := iter.Pull2(idx.servers.from(first))
	defer stop()
	j := 0
	if include {
		j, _ = slices.BinarySearchFunc(idx.gone, afterName, func(g *goneVersion, n string) int { return strings.Compare(g.name, n) })
	}
	// peekV and peekG are the next record of each list that the caller
	// may see and the query keeps, without taking it.
	var cur []*discoveryVersion // the versions of the current server still to list
	var curLatest *discoveryVersion
	peekV := func() *discoveryVersion {
		for {
			for ; len(cur) > 0; cur = cur[1:] {
				v := cur[0]
				if (all || v.visibleTo(labels)) && after(v.name, v.version) &&
					keep(v.name, v.version, v.updatedAt(), v == curLatest) {
					return v
				}
			}
			_, ds, ok := next()
			if !ok {
				return nil
			}
			cur, curLatest = ds.byText, ds.pick("", labels, all)
		}
	}
	peekG := func() *goneVersion {
		for ; include && j < len(idx.gone); j++ {
			g := idx.gone[j]
			if (all || environmentVisible(g.restricted, g.allow, labels)) && after(g.name, g.version) &&
				keep(g.name, g.version, g.stateChanged, false) {
				return g
			}
		}
		return nil
	}
	for {
		v, g := peekV(), peekG()
		if v == nil && g == nil {
			break
		}
		if len(out.Servers) == limit {
			more = true
			break
		}
		if g != nil && (v == nil || g.name < v.name || (g.name == v.name && g.version < v.version)) {
			out.Servers = append(out.Servers, g.official())
			j++
		} else {
			out.Servers = append(out.Servers, v.official(v == curLatest))
			cur = cur[1:]
		}
	}
	if more {
		out.Metadata.NextCursor = officialCursor(out.Servers[len(out.Servers)-1])
	}
	out.Metadata.Count = len(out.Servers)
	return out, nil
}

// OfficialVersions answers GET /v0.1/servers/{serverName}/versions: every
// version in version text order, deleted ones with includeDeleted.
func (s *Discovery) OfficialVersions(ctx context.Context, c *Caller, name string, includeDeleted bool) (*OfficialList, error) {
	out := &OfficialList{Servers: []OfficialServer{}}
	err := s.officialServer(ctx, c, name, includeDeleted, func(ds *discoveryServer, visible func(*discoveryVersion) bool, latest *discoveryVersion, gone []*goneVersion) {
		var vs []*discoveryVersion
		if ds != nil {
			vs = ds.byText
		}
		for len(vs) > 0 || len(gone) > 0 {
			if len(gone) > 0 && (len(vs) == 0 || gone[0].version < vs[0].version) {
				out.Servers = append(out.Servers, gone[0].official())
				gone = gone[1:]
				continue
			}
			if visible(vs[0]) {
				out.Servers = append(out.Servers, vs[0].official(vs[0] == latest))
			}
			vs = vs[1:]
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
// ("latest" or an exact version; an exact deleted one with includeDeleted).
func (s *Discovery) OfficialVersion(ctx context.Context, c *Caller, name, ver string, includeDeleted bool) (*OfficialServer, error) {
	var out *OfficialServer
	err := s.officialServer(ctx, c, name, includeDeleted && ver != "latest", func(ds *discoveryServer, visible func(*discoveryVersion) bool, latest *discoveryVersion, gone []*goneVersion) {
		if ds != nil {
			for _, v := range ds.versions {
				if visible(v) && (v.version == ver || (ver == "latest" && v == latest)) {
					o := v.official(v == latest)
					out = &o
					return
				}
			}
		}
		for _, g := range gone {
			if g.version == ver {
				o := g.official()
				out = &o
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

// officialServer calls fn with the named server of the index (nil when
// it has no approved version), what the caller may see of it, its latest
// visible version and, with includeDeleted, its deleted versions the
// caller may see.
func (s *Discovery) officialServer(ctx context.Context, c *Caller, name string, includeDeleted bool,
	fn func(ds *discoveryServer, visible func(*discoveryVersion) bool, latest *discoveryVersion, gone []*goneVersion)) error {
	labels, all, err := officialVisibility(c)
	if err != nil {
		return err
	}
	idx, err := s.discoveryIndex(ctx)
	if err != nil {
		return err
	}
	var gone []*goneVersion
	if includeDeleted {
		k, _ := slices.BinarySearchFunc(idx.gone, name, func(g *goneVersion, n string) int { return strings.Compare(g.name, n) })
		for ; k < len(idx.gone) && idx.gone[k].name == name; k++ {
			if all || environmentVisible(idx.gone[k].restricted, idx.gone[k].allow, labels) {
				gone = append(gone, idx.gone[k])
			}
		}
	}
	visible := func(v *discoveryVersion) bool { return all || v.visibleTo(labels) }
	if ds := idx.server(name); ds != nil {
		fn(ds, visible, ds.pick("", labels, all), gone)
	} else if len(gone) > 0 {
		fn(nil, visible, nil, gone)
	}
	return nil
}

// officialCursor names the last record of a page, as the official
// registry's cursors do: "name:version".
func officialCursor(o OfficialServer) string {
	var s struct{ Name, Version string }
	_ = json.Unmarshal(o.Server, &s)
	return s.Name + ":" + s.Version
}

// parseOfficialCursor reads "name:version", or a name alone (the list
// goes on after every version of it).
func parseOfficialCursor(c string) (name, ver string, nameOnly bool) {
	name, ver, ok := strings.Cut(c, ":")
	return name, ver, !ok
}

// updatedAt is when the version last changed as /v0.1 sees it: its state
// or its status.
func (v *discoveryVersion) updatedAt() time.Time {
	if v.statusChanged.After(v.stateChanged) {
		return v.statusChanged
	}
	return v.stateChanged
}

// official renders the ServerResponse of a version: status active or
// deprecated, statusChangedAt when it was last set (else when the version
// was approved), statusMessage if any, and mcpreg's pins and approval
// under RegistryMetaKey, decoded from the index for each answer (were
// they kept with the version, they would be pointers for the collector to
// follow, as many as the versions /v0.1 has shown).
func (v *discoveryVersion) official(latest bool) OfficialServer {
	st := officialStatus{Status: StatusActive, PublishedAt: v.publishedAt, UpdatedAt: v.updatedAt(), StatusChangedAt: v.stateChanged, IsLatest: latest}
	if !v.statusChanged.IsZero() {
		st.StatusChangedAt = v.statusChanged
	}
	e := v.entry()
	if v.deprecated {
		st.Status = StatusDeprecated
		if e.StatusMessage != "" {
			st.StatusMessage = &e.StatusMessage
		}
	}
	return OfficialServer{Server: v.serverJSON(), Meta: map[string]any{OfficialMetaKey: st, RegistryMetaKey: &mcpregMeta{Pins: e.Pins,
		Packages: e.Packages, ContractHash: e.Pins.ContractHash, Attestations: e.Attestations, Approval: e.Approval}}}
}

// official renders a deleted version: its server.json and the official
// metadata alone (its pins are not offered for use).
func (g *goneVersion) official() OfficialServer {
	return OfficialServer{Server: g.serverJSON, Meta: map[string]any{OfficialMetaKey: officialStatus{Status: StatusDeleted,
		PublishedAt: g.publishedAt, UpdatedAt: g.stateChanged, StatusChangedAt: g.stateChanged}}}
}

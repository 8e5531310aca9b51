// Package upstreamtest is a fake upstream registry serving the official
// /v0.1/servers list with its semantics (ordered by name then version,
// strict updated_since, deleted versions only with include_deleted or
// updated_since, a cursor naming the last entry), with hooks to make it
// misbehave.
package upstreamtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is one version the fake lists.
type Server struct {
	Name, Version string
	// JSON is the server.json; nil builds a valid one with a
	// streamable-http remote at Remote (ServerJSON).
	JSON          json.RawMessage
	Remote        string
	Status        string // active when empty
	StatusMessage string
	PublishedAt   time.Time
	UpdatedAt     time.Time
}

// SchemaURL is the server.json schema the fake's documents name.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// ServerJSON is a valid server.json of name@version with a
// streamable-http remote (remote, or one at example.com when empty).
func ServerJSON(name, version, description, remote string) json.RawMessage {
	if remote == "" {
		remote = "https://mcp.example.com/" + strings.ReplaceAll(name, "/", "-") + "/mcp"
	}
	doc := map[string]any{"$schema": SchemaURL, "name": name, "description": description, "version": version,
		"remotes": []any{map[string]any{"type": "streamable-http", "url": remote}}}
	b, _ := json.Marshal(doc)
	return b
}

// Fake is a running fake upstream.
type Fake struct {
	*httptest.Server
	// Token, when set, is the bearer token every request must carry.
	Token string
	// Intercept, when set, may answer a request itself (returning true):
	// page is the number of list requests so far, this one included.
	Intercept func(w http.ResponseWriter, r *http.Request, page int) bool

	mu       sync.Mutex
	servers  []Server
	pages    atomic.Int64
	cursors  []string
	authSeen []string
}

// New starts a fake upstream until the test ends.
func New(t testing.TB) *Fake {
	f := Start()
	t.Cleanup(f.Close)
	return f
}

// Start starts a fake upstream; Close stops it.
func Start() *Fake {
	f := &Fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// Put adds or replaces a version; UpdatedAt defaults to now.
func (f *Fake) Put(s Server) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s.JSON == nil {
		s.JSON = ServerJSON(s.Name, s.Version, "Test server "+s.Name, s.Remote)
	}
	if s.Status == "" {
		s.Status = "active"
	}
	if s.UpdatedAt.IsZero() {
		s.UpdatedAt = time.Now().UTC()
	}
	if s.PublishedAt.IsZero() {
		s.PublishedAt = s.UpdatedAt
	}
	i, found := slices.BinarySearchFunc(f.servers, s, compare)
	if found {
		f.servers[i] = s
	} else {
		f.servers = slices.Insert(f.servers, i, s)
	}
}

// SetStatus changes a version's status (and its updatedAt to now).
func (f *Fake) SetStatus(name, version, status, message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.servers {
		if f.servers[i].Name == name && f.servers[i].Version == version {
			f.servers[i].Status, f.servers[i].StatusMessage = status, message
			f.servers[i].UpdatedAt = time.Now().UTC()
		}
	}
}

// Pages is the number of list requests served.
func (f *Fake) Pages() int { return int(f.pages.Load()) }

// Cursors are the cursors list requests asked for, in order ("" for a
// first page).
func (f *Fake) Cursors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.cursors)
}

// Authorizations are the Authorization headers received.
func (f *Fake) Authorizations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.authSeen)
}

func compare(a, b Server) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Version, b.Version))
}

// Cursor is the cursor naming s: the list goes on after it.
func Cursor(s Server) string { return s.Name + ":" + s.Version }

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v0.1/servers" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	f.mu.Lock()
	f.cursors = append(f.cursors, q.Get("cursor"))
	f.authSeen = append(f.authSeen, r.Header.Get("Authorization"))
	f.mu.Unlock()
	page := int(f.pages.Add(1))
	if f.Intercept != nil && f.Intercept(w, r, page) {
		return
	}
	if f.Token != "" && r.Header.Get("Authorization") != "Bearer "+f.Token {
		http.Error(w, `{"title":"Unauthorized","status":401}`, http.StatusUnauthorized)
		return
	}
	body, err := f.List(q.Get("cursor"), q.Get("updated_since"), q.Get("include_deleted") == "true", q.Get("limit"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// List answers one list request.
func (f *Fake) List(cursor, updatedSince string, includeDeleted bool, limit string) ([]byte, error) {
	n := 30
	if limit != "" {
		var err error
		if n, err = strconv.Atoi(limit); err != nil || n < 1 {
			return nil, fmt.Errorf("limit %q", limit)
		}
		n = min(n, 100)
	}
	var since time.Time
	if updatedSince != "" {
		var err error
		if since, err = time.Parse(time.RFC3339Nano, updatedSince); err != nil {
			return nil, fmt.Errorf("updated_since %q", updatedSince)
		}
		includeDeleted = true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	start := 0
	if cursor != "" {
		name, ver, _ := strings.Cut(cursor, ":")
		i, found := slices.BinarySearchFunc(f.servers, Server{Name: name, Version: ver}, compare)
		start = i
		if found {
			start++
		}
	}
	type entry struct {
		Server json.RawMessage `json:"server"`
		Meta   map[string]any  `json:"_meta"`
	}
	out := struct {
		Servers  []entry        `json:"servers"`
		Metadata map[string]any `json:"metadata"`
	}{Servers: []entry{}, Metadata: map[string]any{}}
	for _, s := range f.servers[start:] {
		if (!includeDeleted && s.Status == "deleted") || (!since.IsZero() && !s.UpdatedAt.After(since)) {
			continue
		}
		if len(out.Servers) == n {
			out.Metadata["nextCursor"] = Cursor(f.lastListed(out.Servers[n-1].Server))
			break
		}
		official := map[string]any{"status": s.Status, "publishedAt": s.PublishedAt, "updatedAt": s.UpdatedAt,
			"statusChangedAt": s.UpdatedAt, "isLatest": false}
		if s.StatusMessage != "" {
			official["statusMessage"] = s.StatusMessage
		}
		out.Servers = append(out.Servers, entry{Server: s.JSON, Meta: map[string]any{"io.modelcontextprotocol.registry/official": official}})
	}
	out.Metadata["count"] = len(out.Servers)
	return json.Marshal(out)
}

func (f *Fake) lastListed(raw json.RawMessage) Server {
	var s Server
	_ = json.Unmarshal(raw, &s)
	return s
}

package registry

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/principal"
	entupstream "github.com/mcpreg/mcpreg/internal/ent/upstream"
	"github.com/mcpreg/mcpreg/internal/secrets"
	"github.com/mcpreg/mcpreg/internal/upstream"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
	"github.com/mcpreg/mcpreg/scan"
)

// Upstreams are the upstream registries whose servers a sync imports into
// review, and their sync passes (upstreamsync.go).
type Upstreams struct {
	*core
	review *Review
	// scanning gives the secrets key (tokens are sealed like scan
	// credentials) and the replica name; nil refuses tokens.
	scanning *Scanning
	lim      upstream.Limits
	replica  string
	// background runs the passes StartSync starts.
	background passRunner
	// passing holds the upstreams whose pass runs in this process: the
	// lease is this replica's either way (a restart resumes at once), so
	// it alone cannot keep two requests from running two passes.
	passingMu sync.Mutex
	passing   map[int]bool
}

func newUpstreams(c *core, r *Review, sc *Scanning, lim upstream.Limits) *Upstreams {
	replica := DefaultReplicaName()
	if sc != nil && sc.Replica != "" {
		replica = sc.Replica
	}
	return &Upstreams{core: c, review: r, scanning: sc, lim: lim, replica: replica, passing: map[int]bool{}}
}

// WithUpstreamLimits sets the caps of a sync pass (default
// upstream.DefaultLimits).
func WithUpstreamLimits(l upstream.Limits) Option {
	return func(s *settings) { s.upstreamLimits = &l }
}

// UpstreamInput is what an admin registers.
type UpstreamInput struct {
	Name       string
	URL        string
	Namespaces []string
	// Interval is how often the service syncs it; nil: an hour; 0: only
	// when asked.
	Interval *time.Duration
	Token    string
	Allow    []string
	// Tools is "live" (default) or "none".
	Tools string
}

// How imported versions' tools are read.
const (
	UpstreamToolsLive = "live"
	UpstreamToolsNone = "none"
)

var upstreamNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

const (
	maxUpstreamNamespaces = 64
	maxUpstreamToken      = 8 << 10
	defaultUpstreamEvery  = time.Hour
	minUpstreamEvery      = time.Minute
)

// UpstreamPrincipal is the system principal an upstream's imports are
// submitted by.
func UpstreamPrincipal(name string) string { return "upstream:" + name }

func checkUpstreamInput(in *UpstreamInput) error {
	if !upstreamNameRE.MatchString(in.Name) {
		return invalidf("upstream name %q: want 1-63 lower-case letters, digits and '-', starting with a letter or digit", in.Name)
	}
	if _, err := upstream.CheckURL(in.URL); err != nil {
		return invalidf("upstream %s: %v", in.Name, err)
	}
	if len(in.Namespaces) == 0 {
		return invalidf("upstream %s: give at least one namespace pattern (io.github.acme, com.acme.*, or *)", in.Name)
	}
	if len(in.Namespaces) > maxUpstreamNamespaces {
		return invalidf("upstream %s: %d namespace patterns, the limit is %d", in.Name, len(in.Namespaces), maxUpstreamNamespaces)
	}
	for _, ns := range in.Namespaces {
		if err := ValidNamespacePattern(ns); err != nil {
			return err
		}
	}
	if in.Interval != nil && *in.Interval != 0 && (*in.Interval < minUpstreamEvery || *in.Interval > 30*24*time.Hour) {
		return invalidf("upstream %s: interval %s: want 0 (only when asked) or between %s and 720h", in.Name, *in.Interval, minUpstreamEvery)
	}
	if len(in.Token) > maxUpstreamToken || strings.ContainsAny(in.Token, "\r\n\x00") {
		return invalidf("upstream %s: token: want at most %d bytes without line breaks or NUL", in.Name, maxUpstreamToken)
	}
	if _, err := scan.ParseAllowList(strings.Join(in.Allow, ",")); err != nil {
		return invalidf("upstream %s: allow: %v", in.Name, err)
	}
	switch in.Tools {
	case "":
		in.Tools = UpstreamToolsLive
	case UpstreamToolsLive, UpstreamToolsNone:
	default:
		return invalidf("upstream %s: tools %q: want live or none", in.Name, in.Tools)
	}
	return nil
}

// upstreamAD binds a sealed token to its upstream.
func upstreamAD(name string) []byte { return []byte("upstream\x00" + name) }

func (s *Upstreams) secretsKey() (*secrets.Key, error) {
	if s.scanning == nil || s.scanning.SecretsKey == nil {
		return nil, fmt.Errorf("%w: this registry has no secrets key (mcpregd serve --secrets-key) to seal an upstream token with", ErrFailedPrecondition)
	}
	return s.scanning.SecretsKey, nil
}

// AddUpstream registers an upstream and its system principal. Admins only.
func (s *Upstreams) AddUpstream(ctx context.Context, c *Caller, in UpstreamInput) (*mcpregv1.Upstream, error) {
	if c.Role != RoleAdmin {
		return nil, deniedf("only admins register upstream registries")
	}
	if err := checkUpstreamInput(&in); err != nil {
		return nil, err
	}
	every := defaultUpstreamEvery
	if in.Interval != nil {
		every = *in.Interval
	}
	var sealed []byte
	keyID := ""
	if in.Token != "" {
		key, err := s.secretsKey()
		if err != nil {
			return nil, err
		}
		if sealed, err = key.Seal([]byte(in.Token), upstreamAD(in.Name)); err != nil {
			return nil, err
		}
		keyID = key.ID()
	}
	u, _ := upstream.CheckURL(in.URL)
	pname := UpstreamPrincipal(in.Name)
	var out *ent.Upstream
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		if n, err := tx.Upstream.Query().Where(entupstream.Name(in.Name)).Count(ctx); err != nil {
			return err
		} else if n > 0 {
			return fmt.Errorf("%w: upstream %s is registered already (remove it first to change it)", ErrAlreadyExists, in.Name)
		}
		if err := s.ensureUpstreamPrincipal(ctx, tx, c, pname, in.Namespaces); err != nil {
			return err
		}
		create := tx.Upstream.Create().SetName(in.Name).SetURL(u.String()).SetNamespaces(in.Namespaces).
			SetAllow(strings.Join(in.Allow, ",")).SetIntervalSeconds(int64(every / time.Second)).SetTools(in.Tools).
			SetKeyID(keyID).SetCreatedBy(c.Principal).SetCreatedAt(s.now())
		if sealed != nil {
			create.SetTokenSealed(sealed)
		}
		var err error
		if out, err = create.Save(ctx); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "upstream.add", Subject: "upstream/" + in.Name,
			After: u.Redacted(), RequestID: c.RequestID,
			Details: fmt.Sprintf("namespaces=%v interval=%s tools=%s token=%t allow=%v", in.Namespaces, every, in.Tools, in.Token != "", in.Allow)})
	})
	if err != nil {
		return nil, err
	}
	return upstreamProto(out, time.Time{}), nil
}

// ensureUpstreamPrincipal creates (or re-scopes) the system principal
// upstream:NAME: role owner over the upstream's namespaces, kind upstream,
// no password and no tokens. A principal of that name that is not an
// upstream principal is refused (account names cannot hold ':').
func (s *Upstreams) ensureUpstreamPrincipal(ctx context.Context, tx *ent.Tx, c *Caller, name string, namespaces []string) error {
	p, err := tx.Principal.Query().Where(principal.Name(name)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		if err := tx.Principal.Create().SetName(name).SetRole(principal.RoleOwner).SetKind(principal.KindUpstream).
			SetNamespaces(namespaces).SetCreatedAt(s.now()).Exec(ctx); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "principal.create", Subject: "principal/" + name,
			After: string(principal.RoleOwner), RequestID: c.RequestID, Details: fmt.Sprintf("kind=upstream namespaces=%v", namespaces)})
	case err != nil:
		return err
	case p.Kind != principal.KindUpstream:
		return fmt.Errorf("%w: principal %s exists and is not an upstream principal", ErrConflict, name)
	}
	return tx.Principal.UpdateOne(p).SetNamespaces(namespaces).Exec(ctx)
}

// ListUpstreams lists the upstreams. Admins and reviewers.
func (s *Upstreams) ListUpstreams(ctx context.Context, c *Caller) ([]*mcpregv1.Upstream, error) {
	if !c.MayDecide() {
		return nil, deniedf("only admins and reviewers list upstream registries")
	}
	ups, err := s.store.Client.Upstream.Query().Order(ent.Asc(entupstream.FieldName)).All(ctx)
	if err != nil {
		return nil, err
	}
	out, now := make([]*mcpregv1.Upstream, len(ups)), s.now()
	for i, u := range ups {
		out[i] = upstreamProto(u, now)
	}
	return out, nil
}

// RemoveUpstream stops syncing an upstream. The versions it imported stay
// with their provenance (and their submitter, upstream:NAME, whose
// principal stays too: four-eyes and the audit chain name it).
func (s *Upstreams) RemoveUpstream(ctx context.Context, c *Caller, name string) (*mcpregv1.Upstream, error) {
	if c.Role != RoleAdmin {
		return nil, deniedf("only admins remove upstream registries")
	}
	var out *ent.Upstream
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		u, err := tx.Upstream.Query().Where(entupstream.Name(name)).Only(ctx)
		if ent.IsNotFound(err) {
			return notFoundf("upstream %s", name)
		} else if err != nil {
			return err
		}
		if u.LeaseUntil != nil && u.LeaseUntil.After(s.now()) {
			return fmt.Errorf("%w: a pass of upstream %s is under way on %s; remove it when the pass ends", ErrFailedPrecondition, name, u.LeaseOwner)
		}
		out = u
		if err := tx.Upstream.DeleteOne(u).Exec(ctx); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "upstream.remove", Subject: "upstream/" + name,
			Before: u.URL, RequestID: c.RequestID})
	})
	if err != nil {
		return nil, err
	}
	return upstreamProto(out, time.Time{}), nil
}

// upstreamProto is the API form of an upstream; a lease still held at now
// is a pass under way (the zero now: after the pass ended).
func upstreamProto(u *ent.Upstream, now time.Time) *mcpregv1.Upstream {
	out := &mcpregv1.Upstream{Name: u.Name, Url: u.URL, Namespaces: u.Namespaces, IntervalSeconds: u.IntervalSeconds,
		Principal: UpstreamPrincipal(u.Name), HasToken: len(u.TokenSealed) > 0, Tools: u.Tools,
		CreatedBy: u.CreatedBy, CreatedAt: ts(u.CreatedAt), Since: tsPtr(u.Since), ResumeCursor: u.Cursor,
		LastPassAt: tsPtr(u.LastPassAt), LastSuccessAt: tsPtr(u.LastSuccessAt), LastError: u.LastError}
	if !now.IsZero() && u.LeaseUntil != nil && u.LeaseUntil.After(now) {
		out.SyncingOn = u.LeaseOwner
	}
	if u.Allow != "" {
		out.Allow = strings.Split(u.Allow, ",")
	}
	if len(u.LastCounts) > 0 {
		out.LastCounts = map[string]int64{}
		for k, v := range u.LastCounts {
			out.LastCounts[k] = int64(v)
		}
	}
	return out
}

// matchesUpstream reports whether an upstream's patterns cover name's
// namespace.
func matchesUpstream(u *ent.Upstream, name string) bool {
	ns, _, ok := strings.Cut(name, "/")
	return ok && slices.ContainsFunc(u.Namespaces, func(p string) bool { return NamespaceMatch(p, ns) })
}

// errUpstreamBusy: another replica (or request) runs a pass.
var errUpstreamBusy = errors.New("a pass is under way")

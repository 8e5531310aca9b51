package server

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// discoveryServer implements DiscoveryService over gRPC.
type discoveryServer struct {
	mcpregv1.UnimplementedDiscoveryServiceServer
	svc *registry.Discovery
	// scans takes hosts' connection checks (and the scans they ask for).
	scans *registry.Scans
	// receipts takes and lists runtime gates' receipts.
	receipts *registry.Receipts
	log      *slog.Logger
}

func (s *discoveryServer) PostReceipts(ctx context.Context, r *mcpregv1.PostReceiptsRequest) (*mcpregv1.PostReceiptsResponse, error) {
	out, err := s.receipts.Post(ctx, s.caller(ctx), r.GetReceipts())
	return out, toStatus(ctx, s.log, err)
}

func (s *discoveryServer) ListReceipts(ctx context.Context, r *mcpregv1.ListReceiptsRequest) (*mcpregv1.ListReceiptsResponse, error) {
	f := registry.ReceiptFilter{Server: r.GetServer(), Version: r.GetVersion(), Outcome: r.GetOutcome()}
	rs, next, err := s.receipts.List(ctx, s.caller(ctx), f, registry.Page{Size: r.GetPageSize(), Token: r.GetPageToken()})
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ListReceiptsResponse{Receipts: rs, NextPageToken: next}, nil
}

func (s *discoveryServer) ResolveServers(ctx context.Context, r *mcpregv1.ResolveServersRequest) (*mcpregv1.ResolveServersResponse, error) {
	res, err := s.svc.Resolve(ctx, s.caller(ctx), resolveQuery(r))
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &mcpregv1.ResolveServersResponse{Envelope: string(res.Envelope), Etag: res.ETag}, nil
}

func (s *discoveryServer) CheckConnection(ctx context.Context, r *mcpregv1.CheckConnectionRequest) (*mcpregv1.CheckConnectionResponse, error) {
	out, err := s.scans.CheckConnection(ctx, s.caller(ctx), registry.CheckInput{Name: r.GetName(), Version: r.GetVersion(),
		Tools: []byte(r.GetTools()), InitializeResult: []byte(r.GetInitializeResult())})
	return out, toStatus(ctx, s.log, err)
}

func (s *discoveryServer) caller(ctx context.Context) *registry.Caller {
	return registry.CallerFrom(ctx)
}

func resolveQuery(r *mcpregv1.ResolveServersRequest) registry.ResolveQuery {
	return registry.ResolveQuery{Name: r.GetName(), Version: r.GetVersion(), Namespace: r.GetNamespace(), Owner: r.GetOwner(),
		PageSize: int(r.GetPageSize()), PageToken: r.GetPageToken()}
}

// discoveryHTTP serves GET /v1/discovery/servers from the registry's
// in-memory index without the gateway's round trip: hosts restarting
// together must not hurt. It authenticates and authorises exactly as the
// gRPC method does, and answers 304 to a matching If-None-Match.
func discoveryHTTP(svc *registry.Discovery, id authenticator, log *slog.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		c, err := authorize(ctx, id, log, r.Header.Values("Authorization"), mcpregv1.DiscoveryService_ResolveServers_FullMethodName)
		if err != nil {
			writeStatus(w, status.Convert(err))
			return
		}
		q, st := resolveQueryFromURL(r)
		if st != nil {
			writeStatus(w, st)
			return
		}
		tags, ok := parseIfNoneMatch(r.Header.Values("If-None-Match"))
		if !ok {
			writeStatus(w, status.New(codes.InvalidArgument, "If-None-Match: want * or a list of quoted entity tags"))
			return
		}
		res, err := svc.Resolve(ctx, c, q)
		if err != nil {
			writeStatus(w, status.Convert(toStatus(ctx, log, err)))
			return
		}
		h := w.Header()
		h.Set("ETag", res.ETag)
		h.Set("Cache-Control", "private, no-cache")
		h.Set("Vary", "Authorization")
		if matchesETag(tags, res.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(res.Envelope)))
		_, _ = w.Write(res.Envelope)
	}
}

func resolveQueryFromURL(r *http.Request) (registry.ResolveQuery, *status.Status) {
	v := r.URL.Query()
	q := registry.ResolveQuery{Name: v.Get("name"), Version: v.Get("version"), Namespace: v.Get("namespace"),
		Owner: v.Get("owner"), PageToken: first(v.Get("pageToken"), v.Get("page_token"))}
	if size := first(v.Get("pageSize"), v.Get("page_size")); size != "" {
		n, err := strconv.Atoi(size)
		if err != nil {
			return q, status.Newf(codes.InvalidArgument, "pageSize %q: want an integer from 1 to %d", size, registry.MaxDiscoveryPageSize)
		}
		q.PageSize = n
	}
	return q, nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// parseIfNoneMatch reads If-None-Match headers: "*" or entity tags
// ("..." or W/"..."), comma separated. ok is false for anything else.
func parseIfNoneMatch(values []string) (tags []string, ok bool) {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			t := strings.TrimSpace(part)
			switch t {
			case "":
			case "*":
				tags = append(tags, t)
			default:
				opaque := strings.TrimPrefix(t, "W/")
				if len(opaque) < 2 || opaque[0] != '"' || opaque[len(opaque)-1] != '"' || strings.ContainsAny(opaque[1:len(opaque)-1], "\"\x00\r\n") {
					return nil, false
				}
				tags = append(tags, opaque)
			}
		}
	}
	return tags, true
}

// matchesETag applies the weak comparison If-None-Match uses.
func matchesETag(tags []string, etag string) bool {
	for _, t := range tags {
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// writeStatus writes a gRPC status as the gateway would.
func writeStatus(w http.ResponseWriter, st *status.Status) { writeError(w, httpStatus(st), st) }

// AuditCheckpointPath serves the latest signed audit checkpoint.
const AuditCheckpointPath = "/.well-known/mcpreg/audit-checkpoint"

// auditCheckpoint serves the latest signed audit checkpoint as a signed
// note, without a token, as the discovery keys are served: it says how
// long the log was and its hash then, nothing about the events, and its
// use is to be copied as widely as possible (auditors, other systems,
// backups) so that a later rewrite of the database cannot match all
// copies. A forged answer gains nothing: it must verify with the key.
func auditCheckpoint(svc *registry.Audit, log *slog.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		note, err := svc.LatestCheckpoint(r.Context())
		if err != nil {
			writeStatus(w, status.Convert(toStatus(r.Context(), log, err)))
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=60")
		_, _ = w.Write(note)
	}
}

// discoveryKeys serves the registry's discovery public keys (public: hosts
// should still be configured with the key they trust).
func discoveryKeys(svc *registry.Discovery) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=60")
		writeJSON(w, http.StatusOK, map[string]any{"keys": svc.DiscoveryKeys()})
	}
}

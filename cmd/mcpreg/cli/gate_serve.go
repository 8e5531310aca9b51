package cli

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/hostclient"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/wiring"
)

type gateServeOptions struct {
	listen         string
	scopes         []string // the default session scopes
	hostScopes     []string // PRINCIPAL=SCOPE[,SCOPE]
	allowedHosts   []string
	allowedOrigins []string
	maxSessions    int
	searchMode     bool
	packages       wiring.GatePackagesConfig
	relay          relayFlags
	trust          trustFlags
}

func newGateServeCmd(g *globals) *cobra.Command {
	var o gateServeOptions
	cmd := &cobra.Command{
		Use:   "serve --listen ADDR --key FILE [--host-scopes PRINCIPAL=SCOPES]...",
		Short: "Serve the runtime gate over Streamable HTTP, for shared deployments",
		Long: "Serves, at http://ADDR/servers/{name}/mcp, each server of the discovery view of the host token the\n" +
			"client presents (Authorization: Bearer; no token: 401). The token is checked with the registry\n" +
			"(it must be a host's) and its verified discovery document is used for at most --refresh; while\n" +
			"the registry cannot be reached the document in hand holds until it expires, then requests fail\n" +
			"closed (503, the cause named). The client's token is never sent upstream.\n\n" +
			"Each session (the gateway's own Mcp-Session-Id; an unknown or expired one answers 404) is relayed\n" +
			"with every check of the stdio wrapper (see mcpreg gate --help) to the version's remote\n" +
			"(streamable-http), or else to its npm stdio package: fetched from --npm-registry and checked\n" +
			"against the digest the discovery document names and the registry's integrity, then run with\n" +
			"node in the sandbox (bubblewrap, a uid of --sandbox-uid-range, cgroup limits; needs root) with\n" +
			"the network its contract's egress allows: none for denied, the allow-list through a proxy for\n" +
			"allowlisted_external; other egress modes are refused. Where the sandbox cannot be set up, stdio\n" +
			"packages are refused with the reason; --sandbox=off runs them unconfined.\n\n" +
			"Session scopes come from --host-scopes for the host principals named there, else --scope.\n" +
			"Requests whose Host is not the listen address (DNS rebinding of a loopback listener) or whose\n" +
			"Origin is not an --allowed-origin are refused. Receipts go to the receipts file and to the\n" +
			"registry, under the token of the session that made the call.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.gateServe(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:8765", "address to serve on")
	f.StringSliceVar(&o.scopes, "scope", []string{gate.ScopeRead}, "session scopes of hosts not named in --host-scopes: "+strings.Join(gate.Scopes, ", "))
	f.StringArrayVar(&o.hostScopes, "host-scopes", nil, "session scopes of one host principal, e.g. ci-runner=read,write (repeatable)")
	f.StringArrayVar(&o.allowedHosts, "allowed-host", nil, "a Host header value accepted besides the listen address (repeatable), e.g. gate.internal:8765")
	f.StringArrayVar(&o.allowedOrigins, "allowed-origin", nil, "an Origin accepted from browsers (repeatable), e.g. https://app.example; requests without Origin are accepted")
	f.IntVar(&o.maxSessions, "max-sessions", gate.DefaultMaxSessions, "sessions open at once")
	f.BoolVar(&o.searchMode, "search-mode", false, "also serve "+gate.SearchPath+": two tools, "+gate.SearchToolName+" over every server of the client's view and "+gate.CallToolName+" (servers start when first needed)")
	f.StringVar(&o.packages.Sandbox, "sandbox", config.SandboxBwrap, "how stdio packages run: bwrap (confined; refused where the sandbox cannot be set up) or off (unconfined)")
	f.StringVar(&o.packages.UIDs, "sandbox-uid-range", wiring.DefaultGateUIDRange, "uids of confined runs, FIRST-LAST (not the registry's scan range)")
	f.StringVar(&o.packages.NPMRegistry, "npm-registry", "", "npm registry stdio packages are fetched from (default https://registry.npmjs.org/)")
	f.StringVar(&o.packages.NPMDir, "npm-dir", "", "where fetched packages are kept (default: the cache directory, /var/cache with the sandbox)")
	f.StringArrayVar(&o.packages.AllowHosts, "npm-allow-hosts", nil, "restricted addresses (CIDR, address or name) npm may reach, e.g. a private registry's (repeatable)")
	o.relay.register(f)
	o.trust.register(f)
	return cmd
}

// gateServe serves the HTTP gateway until ctx ends.
func (g *globals) gateServe(ctx context.Context, o gateServeOptions) error {
	ro, err := o.relay.options()
	if err != nil {
		return err
	}
	if len(o.trust.keys) == 0 {
		return errors.New("--key is required: the gateway trusts only a discovery key you give it")
	}
	scopes, err := parseHostScopes(o.scopes, o.hostScopes)
	if err != nil {
		return err
	}
	keys, err := g.keysFromFiles(o.trust.keys)
	if err != nil {
		return err
	}
	state := o.trust.state
	if state == "" {
		if state, err = defaultStatePath(); err != nil {
			return err
		}
	}
	file, err := g.gateReceipts(o.relay)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(g.io.Err, nil))
	o.packages.Log, o.packages.Stderr = log, g.io.Err
	packages, err := wiring.NewGatePackages(ctx, o.packages)
	if err != nil {
		_ = l.Close()
		return err
	}
	uploads := &tokenUploads{g: g, log: log, file: file, ctx: ctx, byToken: map[string]*gate.Uploader{}}
	ro.Log = log
	v := &gatewayViews{g: g, keys: keys, state: hostclient.NewFileStore(state), scopes: scopes}
	gw := gate.NewGateway(gate.GatewayOptions{View: v.view, Connect: connector(packages), Relay: ro, Receipts: uploads.sink,
		Report: v.reporter(log), Refresh: o.relay.refresh, AllowedHosts: allowedHosts(l.Addr().String(), o.listen, o.allowedHosts),
		AllowedOrigins: o.allowedOrigins, MaxSessions: o.maxSessions, SearchMode: o.searchMode, Log: log})
	fmt.Fprintf(g.io.Err, "mcpreg gate: serving http://%s/servers/{name}/mcp for the registry %s\n", l.Addr(), g.server)
	err = gw.Serve(ctx, l)
	uploads.flush()
	return err
}

// parseHostScopes reads --scope and --host-scopes: the scopes by host
// principal, "" for the default.
func parseHostScopes(def, perHost []string) (map[string][]string, error) {
	d, err := gate.ParseScopes(def)
	if err != nil {
		return nil, fmt.Errorf("--scope: %w", err)
	}
	out := map[string][]string{"": d}
	for _, h := range perHost {
		name, list, ok := strings.Cut(h, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("--host-scopes %q: want PRINCIPAL=SCOPE[,SCOPE], e.g. ci-runner=read,write", h)
		}
		s, err := gate.ParseScopes(strings.Split(list, ","))
		if err != nil {
			return nil, fmt.Errorf("--host-scopes %q: %w", h, err)
		}
		out[name] = s
	}
	return out, nil
}

// allowedHosts are the Host values the listener answers: the address it
// was asked to listen on and the one it got (a loopback one under each
// of its names), and --allowed-host. Empty (any) for a listener on every
// interface with no --allowed-host.
func allowedHosts(bound, asked string, extra []string) []string {
	host, port, err := net.SplitHostPort(bound)
	if err != nil {
		return extra
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsUnspecified() && len(extra) == 0 {
		return nil
	}
	out := append([]string{strings.ToLower(asked), bound}, extra...)
	if ip != nil && ip.IsLoopback() {
		for _, name := range []string{"localhost", "127.0.0.1", "[::1]"} {
			out = append(out, name+":"+port)
		}
	}
	for i := range out {
		out[i] = strings.ToLower(out[i])
	}
	return out
}

// connector connects a session to the version's Streamable HTTP remote,
// or else starts its stdio package.
func connector(packages *wiring.GatePackages) func(ctx context.Context, e discovery.Entry) (gate.Conn, error) {
	remotes := gate.NewRemoteClient() // one pool of connections for every session
	return func(ctx context.Context, e discovery.Entry) (gate.Conn, error) {
		for _, r := range e.Remotes {
			if r.Type == "streamable-http" {
				return gate.DialRemote(gate.RemoteOptions{URL: r.URL, HTTP: remotes})
			}
		}
		return packages.Start(ctx, e)
	}
}

// gatewayViews reads each token's verified view from the registry.
type gatewayViews struct {
	g      *globals
	keys   map[string]ed25519.PublicKey
	state  hostclient.SequenceStore
	scopes map[string][]string
}

// hostClient is a host client for token.
func (v *gatewayViews) hostClient(token string) *hostclient.Client {
	hc := &http.Client{Timeout: v.g.timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &hostclient.Client{BaseURL: v.g.server, Token: token, HTTP: hc, Keys: v.keys, State: v.state}
}

// view checks that token is a host's and resolves its discovery view.
func (v *gatewayViews) view(ctx context.Context, token string) (*gate.View, error) {
	c, err := client.New(v.g.server, token, client.WithUserAgent(userAgent))
	if err != nil {
		return nil, err
	}
	p, err := c.WhoAmI(ctx)
	switch {
	case errors.Is(err, client.ErrUnauthenticated):
		return nil, fmt.Errorf("%w: %w", gate.ErrTokenRefused, err)
	case err != nil:
		return nil, err
	case p.GetRole() != "host":
		return nil, fmt.Errorf("%w: %s is a %s, not a host", gate.ErrTokenRefused, p.GetName(), p.GetRole())
	}
	doc, err := v.hostClient(token).Resolve(ctx, hostclient.Query{})
	if errors.Is(err, client.ErrUnauthenticated) {
		return nil, fmt.Errorf("%w: %w", gate.ErrTokenRefused, err)
	} else if err != nil {
		return nil, verificationFailure(err)
	}
	scopes, ok := v.scopes[p.GetName()]
	if !ok {
		scopes = v.scopes[""]
	}
	return &gate.View{Doc: doc, Scopes: scopes, Principal: p.GetName()}, nil
}

// reporter reports a session's mismatching listings under its token.
func (v *gatewayViews) reporter(log *slog.Logger) func(token string, e discovery.Entry) func(tools, init json.RawMessage) {
	return func(token string, e discovery.Entry) func(tools, init json.RawMessage) {
		return v.g.mismatchReporter(v.hostClient(token), &e, log)
	}
}

// tokenUploads sends receipts to the registry under the token of the
// session that made the call, and keeps them all in the receipts file.
type tokenUploads struct {
	g    *globals
	log  *slog.Logger
	file *gate.ReceiptFile
	ctx  context.Context

	mu      sync.Mutex
	byToken map[string]*gate.Uploader
}

func (u *tokenUploads) sink(token string) gate.ReceiptSink {
	u.mu.Lock()
	defer u.mu.Unlock()
	sum := sha256.Sum256([]byte(token))
	key := hex.EncodeToString(sum[:])
	up := u.byToken[key]
	if up == nil {
		up = u.g.uploaderFor(token, u.log)
		u.byToken[key] = up
		go up.Run(u.ctx)
	}
	return gate.Sinks{u.file, up}
}

// flush sends what is still queued, each uploader within the flush
// timeout.
func (u *tokenUploads) flush() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, up := range u.byToken {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), gateFlushTimeout)
		if err := up.Flush(ctx); err != nil {
			u.log.Warn("gate: receipts not sent to the registry (they are in the local receipts file)", "queued", up.Queued(), "err", err)
		}
		cancel()
	}
}

package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/discovery"
	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/gate"
	"github.com/mcpreg/mcpreg/hostclient"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
	"github.com/mcpreg/mcpreg/scan"
)

// EnvGateReceipts names the gate's receipts file.
const EnvGateReceipts = "MCPREG_GATE_RECEIPTS"

// gateFlushTimeout bounds sending the last receipts when the gate stops.
const gateFlushTimeout = 5 * time.Second

type gateOptions struct {
	name, version, url string
	scopes             []string
	searchMode         bool
	relay              relayFlags
	trust              trustFlags
}

// relayFlags are the settings of every relay, the stdio wrapper's and the
// HTTP gateway's.
type relayFlags struct {
	receipts       string
	blockSeverity  string
	maxResultBytes int
	refresh        time.Duration
}

func (r *relayFlags) register(f *pflag.FlagSet) {
	f.StringVar(&r.receipts, "receipts", "", "receipts file (env "+EnvGateReceipts+")")
	f.StringVar(&r.blockSeverity, "block-severity", string(gate.DefaultBlockSeverity), "lowest finding severity in a result that withholds it, when the contract filters results (critical, high, medium, low, info)")
	f.IntVar(&r.maxResultBytes, "max-result-bytes", gate.DefaultMaxResultBytes, "largest tool result forwarded; longer texts are cut and the cut stated")
	f.DurationVar(&r.refresh, "refresh", 30*time.Second, "how often the discovery document is read again: a version no longer listed (quarantined, revoked) is withheld from then on")
}

// options checks the flags and returns the relay options they set.
func (r relayFlags) options() (gate.Options, error) {
	if r.refresh < time.Second {
		return gate.Options{}, fmt.Errorf("--refresh %s: want at least 1s", r.refresh)
	}
	severity := finding.Severity(r.blockSeverity)
	if !slices.Contains([]finding.Severity{finding.Critical, finding.High, finding.Medium, finding.Low, finding.Info}, severity) {
		return gate.Options{}, fmt.Errorf("--block-severity %q: want critical, high, medium, low or info", r.blockSeverity)
	}
	if r.maxResultBytes < 1024 {
		return gate.Options{}, fmt.Errorf("--max-result-bytes %d: want at least 1024", r.maxResultBytes)
	}
	return gate.Options{BlockSeverity: severity, MaxResultBytes: r.maxResultBytes}, nil
}

func newGateCmd(g *globals) *cobra.Command {
	var o gateOptions
	cmd := &cobra.Command{
		Use:   "gate --name NAME [--version V] --key FILE [--state FILE] [--receipts FILE] -- COMMAND [ARGS]...",
		Short: "Run an MCP server behind the runtime gate: only what the registry approved reaches the host",
		Long: "The stdio wrapper for a host's mcpServers entry, e.g.\n" +
			`  "command": "mcpreg", "args": ["gate", "--name", "io.github.acme/weather", "--key", "/etc/mcpreg/registry.pub",` + "\n" +
			`                                 "--", "npx", "-y", "@acme/weather-mcp@1.2.0"]` + "\n" +
			"with MCPREG_SERVER and MCPREG_TOKEN (a host token) in its env.\n\n" +
			"It resolves the signed allowlist (verified like discovery get --verify; --key is required),\n" +
			"takes the approved version of NAME (the latest, or --version) and refuses to start unless\n" +
			"COMMAND runs that version's npm or PyPI package: any binary must not run under an approved\n" +
			"name. It then starts COMMAND as the host would (the host's own process: no sandbox, the\n" +
			"environment without MCPREG_* variables) and relays the protocol on standard input and output:\n" +
			"  - every tools/list answer keeps only the tools whose definitions match the signed pins,\n" +
			"    byte for byte as the server sent them; instructions that differ withhold the server;\n" +
			"  - a tool whose contract risk tier is not one of the session's --scope values (default read)\n" +
			"    is neither listed nor callable;\n" +
			"  - tools/call is refused, and never reaches the server, for a tool that was not passed, for\n" +
			"    arguments that do not match the approved inputSchema, without an idempotency key\n" +
			"    (_meta[\"io.mcpreg/idempotencyKey\"]) where the contract requires one or with a key reused\n" +
			"    for other arguments, and without an approval (_meta[\"io.mcpreg/approval\"] =\n" +
			"    {\"argumentsDigest\": \"sha256:...\"} of exactly these arguments) where it requires one;\n" +
			"    the approval is removed before forwarding; a call that outlives its contract timeout is\n" +
			"    cancelled; a version without a contract gets the strictest rule for every tool;\n" +
			"  - results (and, until they are pinned, prompts/get and resources/read answers) are untrusted\n" +
			"    content: the poisoning detectors read them; where the contract filters results a finding\n" +
			"    at or above --block-severity withholds the result (the error names the finding kinds, never\n" +
			"    the text); where it marks them every text block is wrapped in markers with a per-call nonce;\n" +
			"    structuredContent is never rewritten; results over --max-result-bytes are cut, and the cut\n" +
			"    stated;\n" +
			"  - requests from the server to the host (sampling, elicitation, roots) are refused;\n" +
			"  - every call leaves a receipt (committed, failed, uncertain, rejected) in a rotated\n" +
			"    JSON-lines file (--receipts, " + EnvGateReceipts + ", default $XDG_STATE_HOME/mcpreg/receipts.jsonl).\n" +
			"While the registry cannot be reached, the gate starts from the last verified document of the\n" +
			"same query (kept beside --state; verified again) until it expires, and says so on stderr.\n" +
			"The discovery document is read again every --refresh (30s): once the version is no longer\n" +
			"listed (quarantined, revoked) or the document expired and no fresh one can be read, the server\n" +
			"is withheld for the rest of the session.\n" +
			"What the gate withholds and refuses is logged on standard error; standard output carries the\n" +
			"protocol only. When the host closes standard input the server's process group is stopped.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.gate(cmd.Context(), o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "registry name of the server, e.g. io.github.acme/weather")
	f.StringVar(&o.version, "version", "", "approved version to enforce (default: the latest this host may use)")
	f.StringVar(&o.url, "url", "", "a remote server's Streamable HTTP URL, one of the approved version's remotes, instead of -- COMMAND")
	o.relay.register(f)
	f.StringSliceVar(&o.scopes, "scope", []string{gate.ScopeRead}, "session scopes, the contract risk tiers this host may use: "+strings.Join(gate.Scopes, ", "))
	f.BoolVar(&o.searchMode, "search-mode", false, "serve two tools instead of the server's: "+gate.SearchToolName+" (the tools this session may use, by words of their name or description) and "+gate.CallToolName+" (calls one under every check)")
	o.trust.register(f)
	_ = cmd.MarkFlagRequired("name")
	cmd.AddCommand(newGateServeCmd(g))
	return cmd
}

// gate resolves the approved version, checks the command against it and
// relays until the host closes standard input.
func (g *globals) gate(ctx context.Context, o gateOptions, command []string) error {
	if err := o.check(command); err != nil {
		return err
	}
	ro, err := o.relay.options()
	if err != nil {
		return err
	}
	entry, hc, expires, err := g.gateEntry(ctx, o, command)
	if err != nil {
		return err
	}
	receipts, err := g.gateReceipts(o.relay)
	if err != nil {
		return err
	}
	if ro.Scopes, err = gate.ParseScopes(o.scopes); err != nil {
		return fmt.Errorf("--scope: %w", err)
	}
	up, err := g.gateUpstream(o, command)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(g.io.Err, nil))
	uploader, err := g.receiptUploader(log)
	if err != nil {
		return err
	}
	upCtx, stopUpload := context.WithCancel(ctx)
	defer stopUpload()
	go uploader.Run(upCtx)
	ro.Entry, ro.Receipts, ro.Log, ro.Report = *entry, gate.Sinks{receipts, uploader}, log, g.mismatchReporter(hc, entry, log)
	relay := gate.NewRelay(ro)
	var runErr error
	if o.searchMode {
		search := gate.NewSearch(gate.SearchOptions{Entries: []discovery.Entry{*entry}, Log: log,
			Open: func(context.Context, discovery.Entry) (*gate.Relay, gate.Conn, error) { return relay, up, nil }})
		go g.watchApproval(upCtx, hc, entry, expires, o.relay.refresh, func(why string) { search.Withhold(entry.Name, why) }, log)
		runErr = search.Run(ctx, g.io.In, g.io.Out)
	} else {
		go g.watchApproval(upCtx, hc, entry, expires, o.relay.refresh, relay.Withhold, log)
		runErr = relay.Run(ctx, g.io.In, g.io.Out, up.Reader(), up.Writer())
	}
	if err := up.Close(); err != nil {
		log.Warn("gate: stopping the server", "err", err)
	}
	stopUpload()
	flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), gateFlushTimeout)
	defer cancel()
	if err := uploader.Flush(flushCtx); err != nil {
		log.Warn("gate: receipts not sent to the registry (they are in the local receipts file)", "queued", uploader.Queued(), "err", err)
	}
	if errors.Is(runErr, gate.ErrUpstreamClosed) {
		return fmt.Errorf("gate: %s exited: %w", cmp.Or(o.url, command[0]), runErr)
	}
	return runErr
}

// gateUpstream starts the wrapped command, or connects to --url.
func (g *globals) gateUpstream(o gateOptions, command []string) (gate.Conn, error) {
	if o.url != "" {
		return gate.DialRemote(gate.RemoteOptions{URL: o.url})
	}
	env := upstreamEnv(g.io.Environ())
	path, err := scan.LookPath(command[0], env)
	if err != nil {
		return nil, err
	}
	return gate.StartUpstream(path, command[1:], env, g.io.Err)
}

// check refuses what this gate cannot do.
func (o gateOptions) check(command []string) error {
	switch {
	case o.url != "" && len(command) > 0:
		return errors.New("--url and a command: give one, the remote's URL or the package's command after --")
	case o.url == "" && len(command) == 0:
		return errors.New("no server: give its command after --, e.g. -- npx -y @acme/weather-mcp@1.2.0, or a remote's --url")
	case len(o.trust.keys) == 0:
		return errors.New("--key is required: the gate trusts only a discovery key you give it")
	}
	return nil
}

// gateEntry resolves the verified allowlist entry for --name (and
// --version), from the cached document while the registry is unreachable,
// and checks that the command runs its package.
func (g *globals) gateEntry(ctx context.Context, o gateOptions, command []string) (*discovery.Entry, *hostclient.Client, time.Time, error) {
	c, err := g.hostClient()
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	if err := g.trust(ctx, c, o.trust); err != nil {
		return nil, nil, time.Time{}, err
	}
	if err := g.cacheDocuments(c, o.trust); err != nil {
		return nil, nil, time.Time{}, err
	}
	res, err := c.ResolveCached(ctx, hostclient.Query{Name: o.name, Version: o.version})
	if err != nil {
		return nil, nil, time.Time{}, verificationFailure(err)
	}
	doc := res.Document
	if res.Cached {
		fmt.Fprintf(g.io.Err, "mcpreg gate: warning: registry unreachable (%v); using the discovery document read at %s, valid until %s\n",
			res.Unreachable, res.ReadAt.UTC().Format(time.RFC3339), doc.ExpiresAt.UTC().Format(time.RFC3339))
	}
	var entry *discovery.Entry
	for i := range doc.Servers {
		if doc.Servers[i].Name == o.name {
			entry = &doc.Servers[i]
		}
	}
	if entry == nil {
		return nil, nil, time.Time{}, fmt.Errorf("%s%s is not approved for this host: the gate will not start it", o.name, atVersion(o.version))
	}
	var note string
	if o.url != "" {
		err = hostclient.MatchRemote(entry, o.url)
	} else {
		note, err = hostclient.MatchPackage(entry, command[0], command[1:])
	}
	if err != nil {
		hint := ""
		if o.version == "" {
			hint = " (an older approved version: --version)"
		}
		return nil, nil, time.Time{}, fmt.Errorf("gate: %w; refusing to run it as %s%s", err, o.name, hint)
	}
	if note != "" {
		fmt.Fprintln(g.io.Err, "mcpreg gate: warning:", note)
	}
	if entry.Status == discovery.StatusDeprecated {
		why := ""
		if entry.StatusMessage != "" {
			why = ": " + cell(entry.StatusMessage) // the message is the owner's text: no terminal controls
		}
		fmt.Fprintf(g.io.Err, "mcpreg gate: warning: %s@%s is deprecated%s\n", entry.Name, entry.Version, why)
	}
	return entry, c, doc.ExpiresAt, nil
}

// mismatchReporter reports a listing that did not match the pins through
// the connect-time check: the registry stores the observation and scans
// the version itself.
func (g *globals) mismatchReporter(hc *hostclient.Client, e *discovery.Entry, log *slog.Logger) func(tools, init json.RawMessage) {
	return func(tools, init json.RawMessage) {
		ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
		defer cancel()
		res, err := hc.Check(ctx, e.Name, e.Version, tools, init)
		if err != nil {
			log.Warn("gate: reporting a tool list that differs from the pins failed", "server", e.Name, "err", err)
			return
		}
		log.Info("gate: reported a tool list that differs from the pins", "server", e.Name, "verdict", res.GetVerdict(),
			"scan_requested", res.GetScanRequested(), "message", res.GetMessage())
	}
}

func atVersion(v string) string {
	if v == "" {
		return ""
	}
	return "@" + v
}

// gateReceipts opens the receipts file.
func (g *globals) gateReceipts(o relayFlags) (*gate.ReceiptFile, error) {
	path := o.receipts
	if path == "" {
		path, _ = g.io.LookupEnv(EnvGateReceipts)
	}
	if path == "" {
		var err error
		if path, err = gate.DefaultReceiptsPath(g.io.LookupEnv); err != nil {
			return nil, err
		}
	}
	return &gate.ReceiptFile{Path: path}, nil
}

// upstreamEnv is the host's environment without mcpreg's own settings:
// the wrapped server never sees the host token.
func upstreamEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "MCPREG_") {
			out = append(out, kv)
		}
	}
	return out
}

// receiptUploader sends receipts to the registry with the host token.
func (g *globals) receiptUploader(log *slog.Logger) (*gate.Uploader, error) {
	if g.token == "" {
		return nil, errNoToken
	}
	return g.uploaderFor(g.token, log), nil
}

// uploaderFor sends receipts to the registry with token.
func (g *globals) uploaderFor(token string, log *slog.Logger) *gate.Uploader {
	post := func(ctx context.Context, batch []gate.Receipt) error {
		req := &mcpregv1.PostReceiptsRequest{Receipts: make([]*mcpregv1.CallReceipt, len(batch))}
		for i, r := range batch {
			req.Receipts[i] = receiptProto(r)
		}
		c, err := client.New(g.server, token, client.WithUserAgent(userAgent))
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, g.timeout)
		defer cancel()
		res, err := c.PostReceipts(ctx, req)
		if err != nil {
			return err
		}
		for _, rej := range res.GetRejected() {
			log.Warn("gate: the registry refused a receipt", "receipt", rej.GetReceiptId(), "why", rej.GetReason())
		}
		return nil
	}
	return &gate.Uploader{Post: post, Log: log}
}

func receiptProto(r gate.Receipt) *mcpregv1.CallReceipt {
	return &mcpregv1.CallReceipt{ReceiptId: r.ID, Server: r.Server, Version: r.Version, PinRevision: int32(r.PinRevision),
		Tool: r.Tool, ToolHash: r.ToolHash, ArgumentsDigest: r.ArgumentsDigest, IdempotencyKey: r.IdempotencyKey,
		StartedAt: timestamppb.New(r.StartedAt), EndedAt: timestamppb.New(r.EndedAt), Outcome: string(r.Outcome),
		Reason: r.Reason, ResultDigest: r.ResultDigest, Findings: r.Findings}
}

// watchApproval reads the verified discovery document again every
// interval, and before the one in hand expires. Once the version is no
// longer listed (quarantined, revoked, restricted to other environments)
// the server is withheld for the rest of the session; so it is the moment
// the document in hand expires without a fresh one read. A release does
// not lift it: start the gate again. When the gate was started without
// --version, the start's own query (the latest version) is read too, so
// that the cached document a restart falls back on stays fresh.
func (g *globals) watchApproval(ctx context.Context, hc *hostclient.Client, e *discovery.Entry, expires time.Time,
	every time.Duration, withhold func(why string), log *slog.Logger) {
	latest := hostclient.Query{Name: e.Name}
	var lastErr error
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(nextApprovalCheck(every, time.Until(expires))):
		}
		if !time.Now().Before(expires) {
			withhold(fmt.Sprintf("the discovery document expired at %s and no fresh one could be read: %v",
				expires.UTC().Format(time.RFC3339), lastErr))
			return
		}
		// A read that outlasts the document in hand is a failed one.
		deadline := time.Now().Add(g.timeout)
		if expires.Before(deadline) {
			deadline = expires
		}
		rctx, cancel := context.WithDeadline(ctx, deadline)
		doc, err := hc.Resolve(rctx, hostclient.Query{Name: e.Name, Version: e.Version})
		cancel()
		switch {
		case err != nil:
			lastErr = err
			log.Warn("gate: the discovery document could not be read again; the one in hand holds until it expires",
				"expires", expires.UTC().Format(time.RFC3339), "err", err)
		case !slices.ContainsFunc(doc.Servers, func(x discovery.Entry) bool { return x.Name == e.Name && x.Version == e.Version }):
			withhold(fmt.Sprintf("%s@%s is no longer approved for this host (quarantined, revoked or restricted): "+
				"the registry's discovery document of sequence %d does not list it", e.Name, e.Version, doc.Sequence))
			return
		default:
			expires = doc.ExpiresAt
			if !e.Latest {
				break // started with an older --version: a restart asks for that one
			}
			rctx, cancel := context.WithTimeout(ctx, g.timeout)
			if _, err := hc.Resolve(rctx, latest); err != nil {
				log.Debug("gate: the latest version's document could not be read for the cache", "err", err)
			}
			cancel()
		}
	}
}

// nextApprovalCheck is how long to wait before reading the document
// again: the interval, or sooner while three quarters of what is left of
// the document in hand is shorter (so a fresh one is read before it
// expires), but never past its expiry.
func nextApprovalCheck(every, left time.Duration) time.Duration {
	if left <= 0 {
		return 0
	}
	return max(min(every, left*3/4), min(left, 100*time.Millisecond))
}

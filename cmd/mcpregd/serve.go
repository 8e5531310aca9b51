package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/server"
	"github.com/mcpreg/mcpreg/internal/wiring"
)

func newServeCmd(g *globalOpts) *cobra.Command {
	cfg := config.DefaultConfig()
	migrate := true
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the service: gRPC, REST gateway and metrics (migrates the database first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.DB, cfg.LogLevel, cfg.LogFormat = g.db, g.logLevel, g.logFormat
			if err := cfg.Verify(); err != nil {
				return err
			}
			log, err := newLogger(os.Stderr, cfg.LogLevel, cfg.LogFormat)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			opts, err := wiring.ServiceOptions(cfg, log)
			if err != nil {
				return err
			}
			st, svc, err := openAppMigrating(ctx, g, log, migrate, opts...)
			if err != nil {
				return err
			}
			defer func() { _ = st.Close() }()
			l, err := server.Listen(cfg)
			if err != nil {
				return err
			}
			return server.Run(ctx, cfg, l, st, svc, log)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.HTTPAddr, "http-addr", cfg.HTTPAddr, "REST and web UI address (env MCPREG_HTTP_ADDR)")
	f.StringVar(&cfg.GRPCAddr, "grpc-addr", cfg.GRPCAddr, "gRPC address (env MCPREG_GRPC_ADDR)")
	f.StringVar(&cfg.MetricsAddr, "metrics-addr", cfg.MetricsAddr, "Prometheus metrics address (env MCPREG_METRICS_ADDR)")
	f.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate file, PEM (env MCPREG_TLS_CERT)")
	f.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key file, PEM (env MCPREG_TLS_KEY)")
	f.Int64Var(&cfg.MaxBodyBytes, "max-body-bytes", cfg.MaxBodyBytes, "largest request body accepted (env MCPREG_MAX_BODY_BYTES)")
	f.DurationVar(&cfg.DrainDelay, "drain-delay", 0, "after a stop signal, report not ready and keep serving this long before closing listeners, so a load balancer stops sending requests first (env MCPREG_DRAIN_DELAY)")
	f.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "graceful stop deadline (env MCPREG_SHUTDOWN_TIMEOUT)")
	f.BoolVar(&migrate, "migrate", true, "apply pending database migrations before serving; with several replicas run `mcpregd migrate up` once and serve with --migrate=false, which refuses a database lacking migrations (env MCPREG_MIGRATE)")
	f.BoolVar(&cfg.SecureCookies, "secure-cookies", false, "mark web UI cookies Secure although this port serves plain HTTP (TLS ends at a proxy in front); always on with --tls-cert (env MCPREG_SECURE_COOKIES)")
	f.StringVar(&cfg.OIDCIssuer, "oidc-issuer", "", "OIDC issuer URL for web single sign-on (env MCPREG_OIDC_ISSUER)")
	f.StringVar(&cfg.OIDCClientID, "oidc-client-id", "", "OIDC client id (env MCPREG_OIDC_CLIENT_ID)")
	f.StringVar(&cfg.OIDCClientSecret, "oidc-client-secret", "", "OIDC client secret; prefer the environment variable (env MCPREG_OIDC_CLIENT_SECRET)")
	f.StringVar(&cfg.OIDCRedirectURL, "oidc-redirect-url", "", "this registry's callback, https://HOST/signin/sso/callback (env MCPREG_OIDC_REDIRECT_URL)")
	f.StringVar(&cfg.OIDCPrincipalClaim, "oidc-principal-claim", cfg.OIDCPrincipalClaim, "ID token claim naming the principal; email requires email_verified (env MCPREG_OIDC_PRINCIPAL_CLAIM)")
	f.StringSliceVar(&cfg.TrustedProxies, "trusted-proxies", nil, "CIDRs of proxies in front whose X-Forwarded-For names the client, for web sign-in throttling (env MCPREG_TRUSTED_PROXIES)")
	f.BoolVar(&cfg.PublicReadAPI, "public-read-api", false, "serve the official /v0.1 read API without a token, readable from any browser origin (CORS *) (env MCPREG_PUBLIC_READ_API)")
	f.StringSliceVar(&cfg.CORSOrigins, "cors-origins", nil, "browser origins (scheme://host[:port], exact match) that may read /v0.1 across origins when it is not public (env MCPREG_CORS_ORIGINS)")
	addServiceFlags(f, &cfg)
	return cmd
}

// addServiceFlags are the settings of the services themselves (scanning,
// attestation, discovery signing, secrets, audit checkpoints), shared by
// serve and the admin commands that run a service's work in-process
// (mcpregd upstream sync).
func addServiceFlags(f *pflag.FlagSet, cfg *config.Config) {
	f.DurationVar(&cfg.ContractMaxTokenTTL, "contract-max-token-ttl", cfg.ContractMaxTokenTTL, "longest token TTL a capability contract may declare without a finding (env MCPREG_CONTRACT_MAX_TOKEN_TTL)")
	f.StringArrayVar(&cfg.ScanLaunchTemplates, "scan-launch-template", nil, "admin-approved launch template TYPE=COMMAND ARGS with {identifier} and {version}, e.g. 'npm=node {package_bin}' (templates that download at launch, like npx -y, are refused while stdio scans have no network); every npm package is fetched, checked and prepared first and run as 'node {package_bin}' unless the npm template uses {package_bin} or {package_dir} (repeatable; env MCPREG_SCAN_LAUNCH_TEMPLATE)")
	f.StringVar(&cfg.ScanNPMDir, "scan-npm-dir", "", "folder for npm packages fetched, checked and installed for scanning, kept read-only to the scan user (default USER_CACHE/mcpreg/npm; env MCPREG_SCAN_NPM_DIR)")
	f.StringVar(&cfg.ScanNPMRegistry, "scan-npm-registry", cfg.ScanNPMRegistry, "npm registry packages are fetched from; npm runs with this registry only (env MCPREG_SCAN_NPM_REGISTRY)")
	f.DurationVar(&cfg.ScanNPMTimeout, "scan-npm-timeout", cfg.ScanNPMTimeout, "deadline of one npm fetch: lookup, download, unpack and install (env MCPREG_SCAN_NPM_TIMEOUT)")
	f.StringVar(&cfg.ScanUser, "scan-user", "", "with --scan-sandbox=off: unprivileged user stdio servers run as when mcpregd runs as root (default nobody; env MCPREG_SCAN_USER)")
	f.StringVar(&cfg.ScanSandbox, "scan-sandbox", cfg.ScanSandbox, "how stdio servers under scan and npm steps are confined: bwrap (bubblewrap, needs root; where it cannot be set up stdio scans are refused) or off (unconfined: a warning at every start, on the admin page and in mcpreg_scan_sandbox) (env MCPREG_SCAN_SANDBOX)")
	f.StringVar(&cfg.ScanStdioNetwork, "scan-stdio-network", cfg.ScanStdioNetwork, "network of stdio servers under scan: none (launch templates that download at launch are refused) (env MCPREG_SCAN_STDIO_NETWORK)")
	f.StringVar(&cfg.ScanUIDRange, "scan-uid-range", cfg.ScanUIDRange, "uids of sandboxed runs, one per concurrent run, owning nothing on the host (env MCPREG_SCAN_UID_RANGE)")
	f.Int64Var(&cfg.ScanSandboxMemoryMiB, "scan-sandbox-memory-mib", 0, "memory cap of one sandboxed run, its tmpfs included, in MiB (default 1024; env MCPREG_SCAN_SANDBOX_MEMORY_MIB)")
	f.Int64Var(&cfg.ScanSandboxTmpfsMiB, "scan-sandbox-tmpfs-mib", 0, "size of a sandboxed run's only writable place, a tmpfs at /tmp, in MiB (default 256; env MCPREG_SCAN_SANDBOX_TMPFS_MIB)")
	f.IntVar(&cfg.ScanSandboxPids, "scan-sandbox-pids", 0, "processes and threads of one sandboxed run (default 256; env MCPREG_SCAN_SANDBOX_PIDS)")
	f.DurationVar(&cfg.ScanSandboxCPU, "scan-sandbox-cpu", 0, "CPU time of each process of a sandboxed run, RLIMIT_CPU (default 2m; env MCPREG_SCAN_SANDBOX_CPU)")
	f.IntVar(&cfg.ScanSandboxOpenFiles, "scan-sandbox-open-files", 0, "open files of each process of a sandboxed run, RLIMIT_NOFILE (default 1024; env MCPREG_SCAN_SANDBOX_OPEN_FILES)")
	f.DurationVar(&cfg.ScanInterval, "scan-interval", cfg.ScanInterval, "re-scan approved and quarantined versions this often, plus jitter; 0 turns it off (env MCPREG_SCAN_INTERVAL)")
	f.IntVar(&cfg.ScanConcurrency, "scan-concurrency", cfg.ScanConcurrency, "scans run at once by the schedule (env MCPREG_SCAN_CONCURRENCY)")
	f.DurationVar(&cfg.ScanLeaseTTL, "scan-lease-ttl", cfg.ScanLeaseTTL, "a replica's scan lease lasts this long unless renewed (every third of it while the scan runs); the scans of a replica that died are taken over after it (env MCPREG_SCAN_LEASE_TTL)")
	f.StringVar(&cfg.Replica, "replica", "", "this replica's name in scan records and leases, distinct per replica on one database (default HOSTNAME-PID; env MCPREG_REPLICA)")
	f.DurationVar(&cfg.ScanCooldown, "scan-cooldown", cfg.ScanCooldown, "on-demand scans of a version scanned this recently get that scan (env MCPREG_SCAN_COOLDOWN)")
	f.StringVar(&cfg.ScanRate, "scan-rate", cfg.ScanRate, "on-demand scans (manual and host-report) one principal may ask for, over all its tokens: N/DURATION is N at once and N per DURATION after that, or off; over it the answer is 429 with Retry-After (env MCPREG_SCAN_RATE)")
	f.IntVar(&cfg.ScanOnDemandConcurrency, "scan-ondemand-concurrency", cfg.ScanOnDemandConcurrency, "on-demand scans this replica runs at once; more are answered 429 with Retry-After (env MCPREG_SCAN_ONDEMAND_CONCURRENCY)")
	f.IntVar(&cfg.HostCheckMaxBytes, "host-check-max-bytes", cfg.HostCheckMaxBytes, "largest tools plus initialize result stored with a connect-time observation; larger ones are stored as digests only (env MCPREG_HOST_CHECK_MAX_BYTES)")
	f.IntVar(&cfg.HostCheckKeep, "host-check-keep", cfg.HostCheckKeep, "connect-time observations kept per host principal, server and version, newest first (env MCPREG_HOST_CHECK_KEEP)")
	f.DurationVar(&cfg.HostCheckRetention, "host-check-retention", cfg.HostCheckRetention, "connect-time observations older than this are deleted (env MCPREG_HOST_CHECK_RETENTION)")
	f.DurationVar(&cfg.ReceiptRetention, "receipt-retention", cfg.ReceiptRetention, "gate receipts older than this are deleted (env MCPREG_RECEIPT_RETENTION)")
	f.StringVar(&cfg.DriftPolicy, "drift-policy", "", "JSON file rating drift classes: {\"classes\":{CLASS:{\"severity\",\"action\":\"quarantine|warn\"}},\"riskierAnnotations\":{...}} (default policy: README; env MCPREG_DRIFT_POLICY)")
	f.DurationVar(&cfg.ScanDeadline, "scan-deadline", cfg.ScanDeadline, "deadline of one scan (env MCPREG_SCAN_DEADLINE)")
	addTrustedRootFlag(f, &cfg.TrustedRoots)
	f.StringVar(&cfg.DiscoveryKey, "discovery-key", cfg.DiscoveryKey, "Ed25519 key signing discovery documents, PKCS#8 PEM mode 0600, shared by all replicas; created when missing (mcpregd discovery keygen; env MCPREG_DISCOVERY_KEY)")
	f.StringVar(&cfg.SecretsKey, "secrets-key", cfg.SecretsKey, "AES-256 key (base64 of 32 bytes, mode 0600) sealing the scan credentials admins set per server; shared by all replicas, separate from the discovery key; created when missing (env MCPREG_SECRETS_KEY)")
	f.StringArrayVar(&cfg.DiscoveryPreviousKeys, "discovery-previous-key", nil, "a rotated-out discovery key (PEM, public or private), listed as retiring until its documents expire (repeatable; env MCPREG_DISCOVERY_PREVIOUS_KEY)")
	f.Int64Var(&cfg.AuditCheckpointEvery, "audit-checkpoint-every", cfg.AuditCheckpointEvery, "sign an audit checkpoint (with the discovery key) at every multiple of this many audit events; 0 turns it off (env MCPREG_AUDIT_CHECKPOINT_EVERY)")
	f.DurationVar(&cfg.AuditCheckpointInterval, "audit-checkpoint-interval", cfg.AuditCheckpointInterval, "also sign one at the chain's head when the latest is this old and events were added since; 0 turns it off (env MCPREG_AUDIT_CHECKPOINT_INTERVAL)")
	f.StringVar(&cfg.AuditCheckpointOrigin, "audit-checkpoint-origin", "", "origin line naming this registry's log in checkpoints, e.g. registry.example.com (default: the latest checkpoint's, else mcpreg-audit/ and the discovery key id; env MCPREG_AUDIT_CHECKPOINT_ORIGIN)")
	f.DurationVar(&cfg.DiscoveryTTL, "discovery-ttl", cfg.DiscoveryTTL, "validity of a signed discovery document (env MCPREG_DISCOVERY_TTL)")
	f.StringSliceVar(&cfg.ScanAllowHosts, "scan-allow-hosts", nil, "CIDRs and host names the scanner may dial although private or loopback (env MCPREG_SCAN_ALLOW_HOSTS)")
}

package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/registry"
)

// Config holds every setting of `mcpregd serve`.
type Config struct {
	DB              string
	HTTPAddr        string
	GRPCAddr        string
	MetricsAddr     string
	TLSCert         string
	TLSKey          string
	MaxBodyBytes    int64
	ShutdownTimeout time.Duration
	// DrainDelay keeps serving, reported not ready, this long after a stop
	// signal before listeners close (load balancers notice meanwhile).
	DrainDelay     time.Duration
	LogLevel       string
	LogFormat      string
	ScanAllowHosts []string
	// ScanLaunchTemplates are admin-approved "TYPE=COMMAND ARGS" lines.
	ScanLaunchTemplates []string
	// ScanUser runs stdio servers as this user when mcpregd runs as root
	// and ScanSandbox is "off".
	ScanUser string
	// ScanSandbox confines stdio servers: "bwrap" (default) or "off".
	// ScanStdioNetwork is their network, "none". ScanUIDRange, the
	// ScanSandbox* limits: see package sandbox (0: its defaults).
	ScanSandbox          string
	ScanStdioNetwork     string
	ScanUIDRange         string
	ScanSandboxMemoryMiB int64
	ScanSandboxTmpfsMiB  int64
	ScanSandboxPids      int
	ScanSandboxCPU       time.Duration
	ScanSandboxOpenFiles int
	// ScanNPMDir keeps npm packages fetched and prepared for scanning;
	// empty means a folder in the user's cache directory.
	ScanNPMDir string
	// ScanNPMRegistry is the npm registry packages are fetched from
	// (default fetch.DefaultRegistry).
	ScanNPMRegistry string
	// ScanNPMTimeout bounds one npm fetch: lookup, download, unpack and
	// install (default fetch.DefaultTimeout).
	ScanNPMTimeout time.Duration
	// ScanInterval re-scans approved versions; 0 turns the schedule off.
	ScanInterval    time.Duration
	ScanConcurrency int
	ScanDeadline    time.Duration
	// ScanCooldown answers on-demand scans of a version scanned this
	// recently with that scan.
	ScanCooldown time.Duration
	// ScanRate bounds the on-demand scans one principal asks for
	// ("N/DURATION" or "off"); ScanOnDemandConcurrency caps the on-demand
	// scans this replica runs at once.
	ScanRate                string
	ScanOnDemandConcurrency int
	// HostCheckMaxBytes caps the raw bodies stored with a connect-time
	// observation; HostCheckKeep and HostCheckRetention bound how many
	// (per host principal, server and version) and how old are kept.
	HostCheckMaxBytes  int
	HostCheckKeep      int
	HostCheckRetention time.Duration
	// ReceiptRetention is how long the receipts runtime gates post are
	// kept.
	ReceiptRetention time.Duration
	// ScanLeaseTTL is how long a replica's scan lease lasts without
	// renewal: how soon other replicas take over the scans of one that died.
	ScanLeaseTTL time.Duration
	// Replica names this process in scan records and leases; replicas on
	// one database need distinct names (default: host name and process id).
	Replica string
	// DriftPolicy is a JSON file rating drift classes (severity and
	// quarantine|warn per class); empty means the default policy.
	DriftPolicy string
	// ContractMaxTokenTTL is the longest token lifetime a capability
	// contract may declare without a finding.
	ContractMaxTokenTTL time.Duration
	// DiscoveryKey is the registry's Ed25519 signing key (PKCS#8 PEM, mode
	// 0600), shared by all replicas; created on first start when missing.
	DiscoveryKey string
	// SecretsKey is the key file (base64 of 32 bytes, mode 0600) sealing
	// the scan credentials admins set; created on first start when
	// missing, shared by all replicas, separate from DiscoveryKey so that
	// rotating the signing key loses no credential.
	SecretsKey string
	// DiscoveryPreviousKeys are earlier keys (PEM, public or private) kept
	// listed after a rotation until the documents they signed expire.
	DiscoveryPreviousKeys []string
	// DiscoveryTTL is how long a signed discovery document is valid.
	DiscoveryTTL time.Duration
	// PublicReadAPI serves /v0.1 without a token.
	PublicReadAPI bool
	// CORSOrigins are the browser origins that may read /v0.1 across
	// origins (exact match); with PublicReadAPI every origin may.
	CORSOrigins []string
	// SecureCookies marks web UI cookies Secure without TLS here (TLS ends
	// at a proxy in front); they are always Secure when serving TLS.
	SecureCookies bool
	// OIDC single sign-on for the web UI, when OIDCIssuer is set.
	OIDCIssuer, OIDCClientID, OIDCClientSecret, OIDCRedirectURL, OIDCPrincipalClaim string
	// TrustedProxies (CIDRs) may tell the web UI the client address in
	// X-Forwarded-For, for sign-in throttling.
	TrustedProxies []string
	// AuditCheckpointEvery signs an audit checkpoint at every multiple of
	// this many events; 0: none by count.
	AuditCheckpointEvery int64
	// AuditCheckpointInterval signs one at the chain's head when the latest
	// is this old and the chain grew; 0: none by time.
	AuditCheckpointInterval time.Duration
	// AuditCheckpointOrigin names the log in checkpoint notes; empty: the
	// latest checkpoint's origin, or one derived from the discovery key.
	AuditCheckpointOrigin string
	// TrustedRoots are sigstore trust domains as NAME=PATH to a
	// trusted_root.json; "public-good" is built in unless replaced.
	TrustedRoots []string
}

// DefaultConfig is what `mcpregd serve` runs with when nothing is set.
func DefaultConfig() Config {
	return Config{
		DB:                 "sqlite://./mcpreg.db",
		HTTPAddr:           "127.0.0.1:8080",
		GRPCAddr:           "127.0.0.1:9090",
		MetricsAddr:        "127.0.0.1:9091",
		MaxBodyBytes:       8 << 20,
		DiscoveryKey:       "mcpreg-discovery.key",
		SecretsKey:         "mcpreg-secrets.key",
		DiscoveryTTL:       5 * time.Minute,
		OIDCPrincipalClaim: "email",
		ShutdownTimeout:    15 * time.Second,
		LogLevel:           "info",
		LogFormat:          "json",

		ContractMaxTokenTTL: 24 * time.Hour,
		ScanInterval:        time.Hour,
		ScanConcurrency:     4,
		ScanDeadline:        60 * time.Second,
		ScanNPMRegistry:     fetch.DefaultRegistry,
		ScanNPMTimeout:      fetch.DefaultTimeout,
		ScanCooldown:        10 * time.Second,
		ScanRate:            "10/1m",

		ScanOnDemandConcurrency: 4,
		HostCheckMaxBytes:       registry.DefaultHostCheckLimits().MaxBytes,
		HostCheckKeep:           registry.DefaultHostCheckLimits().Keep,
		HostCheckRetention:      registry.DefaultHostCheckLimits().Retention,
		ReceiptRetention:        registry.DefaultReceiptRetention,
		ScanLeaseTTL:            registry.DefaultLeaseTTL,
		ScanSandbox:             SandboxBwrap,
		ScanStdioNetwork:        "none",
		ScanUIDRange:            "100000-100063",

		AuditCheckpointEvery:    registry.DefaultCheckpointEvery,
		AuditCheckpointInterval: registry.DefaultCheckpointInterval,
	}
}

// Verify checks a configuration before anything starts.
func (c Config) Verify() error {
	var errs []error
	for name, addr := range map[string]string{"http-addr": c.HTTPAddr, "grpc-addr": c.GRPCAddr, "metrics-addr": c.MetricsAddr} {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			errs = append(errs, fmt.Errorf("--%s %q: want HOST:PORT", name, addr))
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errors.New("--tls-cert and --tls-key go together"))
	}
	if c.ContractMaxTokenTTL < time.Second {
		errs = append(errs, fmt.Errorf("--contract-max-token-ttl %s: want at least 1s", c.ContractMaxTokenTTL))
	}
	if c.OIDCIssuer != "" && (c.OIDCClientID == "" || c.OIDCRedirectURL == "") {
		errs = append(errs, errors.New("--oidc-issuer needs --oidc-client-id and --oidc-redirect-url"))
	}
	if _, err := ParseTrustedProxies(c.TrustedProxies); err != nil {
		errs = append(errs, err)
	}
	for _, o := range c.CORSOrigins {
		if err := checkOrigin(o); err != nil {
			errs = append(errs, fmt.Errorf("--cors-origins %q: %w", o, err))
		}
	}
	if c.DiscoveryTTL < 10*time.Second || c.DiscoveryTTL > 24*time.Hour {
		errs = append(errs, fmt.Errorf("--discovery-ttl %s: want 10s to 24h", c.DiscoveryTTL))
	}
	if c.DrainDelay < 0 || c.DrainDelay > 5*time.Minute {
		errs = append(errs, fmt.Errorf("--drain-delay %s: want 0 to 5m", c.DrainDelay))
	}
	if c.ScanLeaseTTL < time.Second {
		errs = append(errs, fmt.Errorf("--scan-lease-ttl %s: want at least 1s", c.ScanLeaseTTL))
	}
	if c.ScanOnDemandConcurrency < 1 {
		errs = append(errs, fmt.Errorf("--scan-ondemand-concurrency %d: want at least 1", c.ScanOnDemandConcurrency))
	}
	if _, err := registry.ParseScanRate(c.ScanRate); err != nil {
		errs = append(errs, err)
	}
	if c.HostCheckMaxBytes < 0 || c.HostCheckKeep < 1 || c.HostCheckRetention < time.Minute {
		errs = append(errs, fmt.Errorf("--host-check-max-bytes %d, --host-check-keep %d, --host-check-retention %s: want at least 0, 1 and 1m",
			c.HostCheckMaxBytes, c.HostCheckKeep, c.HostCheckRetention))
	}
	if c.ReceiptRetention < time.Hour {
		errs = append(errs, fmt.Errorf("--receipt-retention %s: want at least 1h", c.ReceiptRetention))
	}
	if c.ScanConcurrency < 1 {
		errs = append(errs, fmt.Errorf("--scan-concurrency %d: want at least 1", c.ScanConcurrency))
	}
	if strings.ContainsAny(c.Replica, "#\x00") || len(c.Replica) > 200 {
		errs = append(errs, fmt.Errorf("--replica %q: at most 200 characters, without # or NUL", c.Replica))
	}
	errs = append(errs, c.verifyCheckpoints()...)
	if c.MaxBodyBytes < 1024 {
		errs = append(errs, fmt.Errorf("--max-body-bytes %d: want at least 1024", c.MaxBodyBytes))
	}
	if _, err := ParseTrustedRoots(c.TrustedRoots); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.Sandbox(); err != nil {
		errs = append(errs, err)
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		errs = append(errs, fmt.Errorf("--log-format %q: want json or text", c.LogFormat))
	}
	return errors.Join(errs...)
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// ParseTrustedProxies reads --trusted-proxies CIDRs (a bare address is a
// single host).
func ParseTrustedProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range list {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !strings.Contains(item, "/") {
			a, err := netip.ParseAddr(item)
			if err != nil {
				return nil, fmt.Errorf("--trusted-proxies %q: want a CIDR or an address", item)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxies %q: want a CIDR or an address", item)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Limits are the registry's limits under this configuration.
func (c Config) Limits() (registry.Limits, error) {
	l := registry.DefaultLimits()
	l.ContractMaxTokenTTL, l.ScanCooldown = c.ContractMaxTokenTTL, c.ScanCooldown
	r, err := registry.ParseScanRate(c.ScanRate)
	if err != nil {
		return l, err
	}
	l.ScanRate, l.ScanOnDemandConcurrency = r, c.ScanOnDemandConcurrency
	l.HostChecks = registry.HostCheckLimits{MaxBytes: c.HostCheckMaxBytes, Keep: c.HostCheckKeep, Retention: c.HostCheckRetention}
	l.ReceiptRetention = c.ReceiptRetention
	return l, nil
}

func (c Config) verifyCheckpoints() []error {
	var errs []error
	if c.AuditCheckpointEvery < 0 {
		errs = append(errs, fmt.Errorf("--audit-checkpoint-every %d: want 0 (off) or more", c.AuditCheckpointEvery))
	}
	if c.AuditCheckpointInterval != 0 && c.AuditCheckpointInterval < 10*time.Second {
		errs = append(errs, fmt.Errorf("--audit-checkpoint-interval %s: want 0 (off) or at least 10s", c.AuditCheckpointInterval))
	}
	if c.AuditCheckpointOrigin != "" {
		if err := auditchain.CheckOrigin(c.AuditCheckpointOrigin); err != nil {
			errs = append(errs, fmt.Errorf("--audit-checkpoint-origin: %w", err))
		}
	}
	return errs
}

// Checkpoints is the audit checkpoint schedule.
func (c Config) Checkpoints() registry.Checkpoints {
	return registry.Checkpoints{Every: c.AuditCheckpointEvery, Interval: c.AuditCheckpointInterval, Origin: c.AuditCheckpointOrigin}
}

// checkOrigin accepts a browser origin exactly as browsers send it:
// scheme://host[:port], lower case, no path, no wildcard.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	switch {
	case err != nil:
		return err
	case o == "*" || strings.Contains(o, "*"):
		return errors.New("no wildcards (--public-read-api allows every origin)")
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return errors.New("want scheme://host[:port]")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("an origin has no path, query, fragment or user")
	case o != strings.ToLower(o):
		return errors.New("browsers send origins in lower case")
	}
	return nil
}

package server

import (
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/registry"
)

// sandboxGauge is mcpreg_scan_sandbox{mode}: 1 for the mode in effect.
func sandboxGauge(mode string) prometheus.Collector {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcpreg_scan_sandbox",
		Help: "How stdio servers under scan are confined: 1 for the mode in effect (bwrap, off, unavailable)."}, []string{"mode"})
	for _, m := range []string{config.SandboxBwrap, config.SandboxOff, config.SandboxUnavailable} {
		v := 0.0
		if m == mode {
			v = 1
		}
		g.WithLabelValues(m).Set(v)
	}
	return g
}

// sandboxNotice is the warning logged at every start and shown to admins
// when stdio scans are not confined, or "".
func sandboxNotice(svc *registry.Scans) string {
	switch svc.ScanSandboxMode() {
	case config.SandboxOff:
		return "stdio servers under scan run without the sandbox (--scan-sandbox=off): they share this host's network and can leave processes behind; run mcpregd as root with bubblewrap installed and drop --scan-sandbox=off"
	case config.SandboxUnavailable:
		return "stdio scans are refused: the scan sandbox cannot be set up here"
	}
	return ""
}

// warnSandbox logs the sandbox's state at start.
func warnSandbox(log *slog.Logger, svc *registry.Scans) {
	if notice := sandboxNotice(svc); notice != "" {
		args := []any{"mode", svc.ScanSandboxMode()}
		if sb := svc.ScanSandbox(); sb != nil && sb.Err() != nil {
			args = append(args, "reason", sb.Err().Error())
		}
		log.Warn(notice, args...)
	}
}

// warnDriftPolicy logs at start the drift classes the policy file leaves
// out, which fail closed.
func warnDriftPolicy(log *slog.Logger, svc *registry.Scans) {
	if cs := svc.DriftClassesFailingClosed(); len(cs) > 0 {
		names := make([]string, len(cs))
		for i, c := range cs {
			names[i] = string(c)
		}
		log.Warn("the drift policy leaves drift classes out: they quarantine at high severity (fail closed); give them a rule in --drift-policy",
			"classes", strings.Join(names, ","))
	}
}

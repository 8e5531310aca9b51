package registry

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpreg/mcpreg/internal/states"
)

// scanMetrics count what the scanner does. The transport registers them
// with its Prometheus registry (Service.Collectors).
type scanMetrics struct {
	scans       *prometheus.CounterVec
	errors      *prometheus.CounterVec
	duration    prometheus.Histogram
	drift       *prometheus.CounterVec
	quarantines *prometheus.CounterVec
	// leaseTakeovers counts scan leases taken from a replica that stopped
	// renewing them.
	leaseTakeovers prometheus.Counter
}

func newScanMetrics() *scanMetrics {
	return &scanMetrics{
		scans: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpreg_scans_total",
			Help: "Scans by trigger and outcome (match, drift, error)."}, []string{"trigger", "outcome"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpreg_scan_errors_total",
			Help: "Failed scans by kind (fetch, digest_mismatch, timeout, limit, denied, invalid, protocol, unreachable, abandoned)."}, []string{"kind"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "mcpreg_scan_duration_seconds",
			Help: "Duration of scans.", Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}}),
		drift: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpreg_drift_changes_total",
			Help: "Drift changes recorded, by class."}, []string{"class"}),
		quarantines: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpreg_quarantines_total",
			Help: "Versions quarantined, by kind (manual, drift)."}, []string{"kind"}),
		leaseTakeovers: prometheus.NewCounter(prometheus.CounterOpts{Name: "mcpreg_scan_lease_takeovers_total",
			Help: "Scan leases taken over from a replica that stopped renewing them (its scans are marked abandoned)."}),
	}
}

// Collectors are the service's Prometheus metrics.
func (s *Scans) Collectors() []prometheus.Collector {
	m := s.metrics
	return []prometheus.Collector{m.scans, m.errors, m.duration, m.drift, m.quarantines, m.leaseTakeovers}
}

func (m *scanMetrics) scanned(trigger states.ScanTrigger, outcome states.ScanOutcome, errKind states.ScanErrorKind, d time.Duration) {
	m.scans.WithLabelValues(string(trigger), string(outcome)).Inc()
	if errKind != "" {
		m.errors.WithLabelValues(string(errKind)).Inc()
	}
	m.duration.Observe(d.Seconds())
}

// quarantined counts a version quarantined for the reason kind.
func (m *scanMetrics) quarantined(kind states.QuarantineKind) {
	m.quarantines.WithLabelValues(string(kind)).Inc()
}

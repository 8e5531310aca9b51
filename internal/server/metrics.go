package server

import (
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics holds the service's Prometheus collectors on a private registry.
type metrics struct {
	reg      *prometheus.Registry
	grpc     *grpcprom.ServerMetrics
	httpReqs *prometheus.CounterVec
	httpDur  *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		grpc: grpcprom.NewServerMetrics(grpcprom.WithServerHandlingTimeHistogram(
			grpcprom.WithHistogramBuckets([]float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}))),
		httpReqs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpreg_http_requests_total",
			Help: "HTTP requests by route pattern, method and status code."}, []string{"route", "method", "code"}),
		httpDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mcpreg_http_request_duration_seconds",
			Help: "HTTP request latency by route pattern.", Buckets: prometheus.DefBuckets}, []string{"route"}),
	}
	m.reg.MustRegister(m.grpc, m.httpReqs, m.httpDur,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// handler serves the metrics port: /metrics, and Go's profiler under
// /debug/pprof/ for operators (the port is internal, like the metrics).
func (m *metrics) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func (m *metrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		m.httpReqs.WithLabelValues(route, r.Method, strconv.Itoa(rec.code)).Inc()
		m.httpDur.WithLabelValues(route).Observe(time.Since(start).Seconds())
	})
}

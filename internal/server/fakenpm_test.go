package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakeNPM is an npm registry on loopback: it serves a packument per
// package with dist.integrity and a tarball URL for each version it knows.
type fakeNPM struct {
	srv      *httptest.Server
	mu       sync.Mutex
	versions map[string]map[string]string // name -> version -> integrity
	requests int
}

func startFakeNPM(t *testing.T) *fakeNPM {
	t.Helper()
	f := &fakeNPM{versions: map[string]map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// publish makes name@version known with the given integrity.
func (f *fakeNPM) publish(name, version, integrity string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.versions[name] == nil {
		f.versions[name] = map[string]string{}
	}
	f.versions[name][version] = integrity
}

func (f *fakeNPM) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	name, err := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/"))
	vs, ok := f.versions[name]
	if err != nil || !ok {
		http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
		return
	}
	doc := map[string]any{"name": name, "versions": map[string]any{}}
	for v, integrity := range vs {
		doc["versions"].(map[string]any)[v] = map[string]any{"name": name, "version": v,
			"dist": map[string]any{"integrity": integrity, "tarball": f.srv.URL + "/" + name + "/-/x-" + v + ".tgz"}}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(doc)
}

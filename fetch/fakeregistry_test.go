package fetch

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpreg/mcpreg/attest"
)

// fakePackage is one version served by a fakeRegistry.
type fakePackage struct {
	name, version string
	// manifest is the version's package.json (also served in the
	// registry's metadata); it is the tarball's package/package.json.
	manifest map[string]any
	// files are more tarball entries, below package/.
	files []entry
	// tarball replaces the built tarball when set.
	tarball []byte
	// integrity replaces the published integrity when set.
	integrity string
	// tarballURL replaces the published tarball URL when set.
	tarballURL string
}

// fakeRegistry is an npm registry on loopback serving metadata documents
// and tarballs built in the test.
type fakeRegistry struct {
	*httptest.Server
	mu       sync.Mutex
	pkgs     map[string][]*fakePackage
	tarballs map[string][]byte
	// downloads counts tarball requests.
	downloads atomic.Int32
}

func newFakeRegistry(t *testing.T, pkgs ...*fakePackage) *fakeRegistry {
	t.Helper()
	r := &fakeRegistry{pkgs: map[string][]*fakePackage{}, tarballs: map[string][]byte{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	for _, p := range pkgs {
		r.add(t, p)
	}
	return r
}

// add publishes p.
func (r *fakeRegistry) add(t *testing.T, p *fakePackage) {
	t.Helper()
	if p.tarball == nil {
		m := map[string]any{"name": p.name, "version": p.version}
		for k, v := range p.manifest {
			m[k] = v
		}
		pj, _ := json.Marshal(m)
		p.tarball = tarball(t, append([]entry{{name: "package/package.json", body: string(pj)}}, p.files...)...)
	}
	if p.integrity == "" {
		d, _ := attest.DigestOf(p.tarball, attest.SHA512)
		p.integrity = integrityOf(d)
	}
	path := "/" + p.name + "/-/" + p.name[strings.LastIndex(p.name, "/")+1:] + "-" + p.version + ".tgz"
	if p.tarballURL == "" {
		p.tarballURL = r.URL + path
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pkgs[p.name] = append(r.pkgs[p.name], p)
	r.tarballs[path] = p.tarball
}

func (r *fakeRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if data, ok := r.tarballs[req.URL.Path]; ok {
		r.downloads.Add(1)
		w.Write(data)
		return
	}
	name, _ := url.PathUnescape(strings.TrimPrefix(req.URL.EscapedPath(), "/"))
	versions := map[string]any{}
	for _, p := range r.pkgs[name] {
		m := map[string]any{"name": p.name, "version": p.version,
			"dist": map[string]any{"integrity": p.integrity, "tarball": p.tarballURL}}
		for _, k := range []string{"dependencies", "optionalDependencies", "peerDependencies", "bin"} {
			if v, ok := p.manifest[k]; ok {
				m[k] = v
			}
		}
		versions[p.version] = m
	}
	if len(versions) == 0 {
		http.NotFound(w, req)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"name": name, "versions": versions})
}

// integrityOf is d as a subresource-integrity value.
func integrityOf(d attest.Digest) string {
	raw, _ := hex.DecodeString(d.Hex)
	return d.Algorithm + "-" + base64.StdEncoding.EncodeToString(raw)
}

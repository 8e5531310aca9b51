// Package fetchtest serves npm packages built in a test from a fake npm
// registry on loopback, so tests of the fetcher never need the real
// registry (and hostile packages never reach it).
package fetchtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
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

// File is a regular file of a package tarball; Name includes the top
// folder ("package/index.js"). Mode 0 means 0644.
type File struct {
	Name, Body string
	Mode       int64
}

// Package is one version served by a Registry.
type Package struct {
	Name, Version string
	// Manifest is the version's package.json beyond name and version; it
	// is package/package.json in the tarball and the registry serves its
	// dependency fields and bin in the metadata.
	Manifest map[string]any
	// Files are more tarball entries.
	Files []File
	// Tarball replaces the built tarball when set.
	Tarball []byte
	// Integrity replaces the published integrity when set.
	Integrity string
	// TarballURL replaces the published tarball URL when set.
	TarballURL string
}

// Registry is an npm registry on loopback serving metadata documents and
// tarballs built in the test.
type Registry struct {
	*httptest.Server
	mu       sync.Mutex
	pkgs     map[string][]*Package
	tarballs map[string][]byte
	// Downloads counts tarball requests.
	Downloads atomic.Int32
}

// NewRegistry starts a registry serving pkgs; it stops with the test.
func NewRegistry(t testing.TB, pkgs ...*Package) *Registry {
	t.Helper()
	r := &Registry{pkgs: map[string][]*Package{}, tarballs: map[string][]byte{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	for _, p := range pkgs {
		r.Add(t, p)
	}
	return r
}

// Add publishes p, filling in its tarball, integrity and tarball URL.
func (r *Registry) Add(t testing.TB, p *Package) {
	t.Helper()
	if p.Tarball == nil {
		m := map[string]any{"name": p.Name, "version": p.Version}
		for k, v := range p.Manifest {
			m[k] = v
		}
		pj, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		p.Tarball = Tarball(t, append([]File{{Name: "package/package.json", Body: string(pj)}}, p.Files...)...)
	}
	if p.Integrity == "" {
		d, _ := attest.DigestOf(p.Tarball, attest.SHA512)
		p.Integrity = Integrity(d)
	}
	path := "/" + p.Name + "/-/" + p.Name[strings.LastIndex(p.Name, "/")+1:] + "-" + p.Version + ".tgz"
	if p.TarballURL == "" {
		p.TarballURL = r.URL + path
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pkgs[p.Name] = append(r.pkgs[p.Name], p)
	r.tarballs[path] = p.Tarball
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if data, ok := r.tarballs[req.URL.Path]; ok {
		r.Downloads.Add(1)
		_, _ = w.Write(data)
		return
	}
	name, _ := url.PathUnescape(strings.TrimPrefix(req.URL.EscapedPath(), "/"))
	versions := map[string]any{}
	for _, p := range r.pkgs[name] {
		m := map[string]any{"name": p.Name, "version": p.Version,
			"dist": map[string]any{"integrity": p.Integrity, "tarball": p.TarballURL}}
		for _, k := range []string{"dependencies", "optionalDependencies", "peerDependencies", "bin"} {
			if v, ok := p.Manifest[k]; ok {
				m[k] = v
			}
		}
		versions[p.Version] = m
	}
	if len(versions) == 0 {
		http.NotFound(w, req)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"name": name, "versions": versions})
}

// Tarball is a gzip'd tar of files.
func Tarball(t testing.TB, files ...File) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		if err := tw.WriteHeader(&tar.Header{Name: f.Name, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(f.Body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Integrity is d as a subresource-integrity value ("sha512-BASE64").
func Integrity(d attest.Digest) string {
	raw, _ := hex.DecodeString(d.Hex)
	return d.Algorithm + "-" + base64.StdEncoding.EncodeToString(raw)
}

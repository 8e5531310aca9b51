package hostclient_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/hostclient"
)

// key is a valid cache key made of one repeated hex digit.
func key(digit string) string { return strings.Repeat(digit, 64) }

// TestFileCache: pages come back byte for byte; the directory and files
// are private and nothing temporary is left; a missing entry is none, a
// key that could name another file is refused.
func TestFileCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state.json.cache")
	fc := hostclient.NewFileCache(dir)
	if doc, err := fc.Load(key("a")); err != nil || doc != nil {
		t.Fatalf("empty cache: %+v %v", doc, err)
	}
	pages := [][]byte{[]byte(" {\"payload\" :\t\"e30=\"}\n"), {0xff, 0x00, '"'}}
	in := &hostclient.CachedDocument{Key: key("a"), Registry: "https://r.example", Query: hostclient.Query{Name: "a/one", PageSize: 3},
		ReadAt: t0, Pages: pages}
	if err := fc.Store(in); err != nil {
		t.Fatal(err)
	}
	out, err := hostclient.NewFileCache(dir).Load(key("a"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, key("a")+".json")
	if out.Source != path || out.Registry != in.Registry || out.Query != in.Query || !out.ReadAt.Equal(t0) || len(out.Pages) != 2 ||
		!bytes.Equal(out.Pages[0], pages[0]) || !bytes.Equal(out.Pages[1], pages[1]) {
		t.Fatalf("stored %+v, loaded %+v", in, out)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory %v %v, want 0700", fi, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file %v %v, want 0600", fi, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left in %s: %v", dir, entries)
	}
	for _, bad := range []string{"../state", key("a")[:63], key("g")} {
		if _, err := fc.Load(bad); err == nil {
			t.Errorf("Load(%q) read something", bad)
		}
		if err := fc.Store(&hostclient.CachedDocument{Key: bad, Pages: pages}); err == nil {
			t.Errorf("Store(%q) wrote something", bad)
		}
	}
	if err := fc.Store(&hostclient.CachedDocument{Key: key("b")}); err == nil {
		t.Error("stored a document without pages")
	}
}

// TestFileCacheBounds: beyond MaxFiles or MaxBytes the oldest files go,
// never the one just stored; a document larger than MaxBytes is not
// stored, and a file larger than it is not read.
func TestFileCacheBounds(t *testing.T) {
	var dir string
	store := func(fc *hostclient.FileCache, k string, size int, age time.Duration) {
		t.Helper()
		if err := fc.Store(&hostclient.CachedDocument{Key: key(k), Pages: [][]byte{bytes.Repeat([]byte("x"), size)}}); err != nil {
			t.Fatal(err)
		}
		mod := time.Now().Add(-age)
		if err := os.Chtimes(filepath.Join(dir, key(k)+".json"), mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	present := func() string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name()[:1])
		}
		return strings.Join(out, "")
	}
	dir = t.TempDir()
	byCount := &hostclient.FileCache{Dir: dir, MaxFiles: 2}
	store(byCount, "1", 10, 3*time.Hour)
	store(byCount, "2", 10, 2*time.Hour)
	store(byCount, "3", 10, time.Hour)
	if got := present(); got != "23" {
		t.Fatalf("after three stores into two files: %s, want 23", got)
	}
	store(byCount, "4", 10, 4*time.Hour) // the oldest by its time, but just stored
	if got := present(); got != "34" {
		t.Fatalf("after a store: %s, want 34", got)
	}

	// Each file takes about 1.4 KiB (base64 and the fields).
	dir = t.TempDir()
	bySize := &hostclient.FileCache{Dir: dir, MaxBytes: 4096}
	store(bySize, "5", 1000, 2*time.Hour)
	store(bySize, "6", 1000, time.Hour)
	if got := present(); got != "56" {
		t.Fatalf("after two stores of 1.4 KiB into 4 KiB: %s, want 56", got)
	}
	store(bySize, "7", 1000, 0)
	if got := present(); got != "67" {
		t.Fatalf("after three stores of 1.4 KiB into 4 KiB: %s, want 67", got)
	}
	err := bySize.Store(&hostclient.CachedDocument{Key: key("1"), Pages: [][]byte{bytes.Repeat([]byte("x"), 4096)}})
	if err == nil || !strings.Contains(err.Error(), "more than the cache's 4096") {
		t.Errorf("storing more than MaxBytes: %v", err)
	}
	big := filepath.Join(dir, key("2")+".json")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), 5000), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := bySize.Load(key("2")); !errors.Is(err, hostclient.ErrCacheFile) || !strings.Contains(err.Error(), big) {
		t.Errorf("loading a file over MaxBytes: %v", err)
	}
}

// TestResolveSurvivesACacheFailure: a document that cannot be cached is
// still returned, and OnCacheError hears why.
func TestResolveSurvivesACacheFailure(t *testing.T) {
	f := newFakeRegistry(t)
	f.page = pages(7, 2, "a/one", "a/two", "a/three")
	c := f.client()
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var reported []error
	c.Cache, c.OnCacheError = hostclient.NewFileCache(notDir), func(err error) { reported = append(reported, err) }
	doc, err := c.Resolve(context.Background(), hostclient.Query{})
	if err != nil || names(doc) != "a/one a/two a/three" {
		t.Fatalf("%v %+v", err, doc)
	}
	if len(reported) != 1 || !strings.Contains(reported[0].Error(), "keeping the discovery document for use while "+f.url+" is unreachable") {
		t.Errorf("reported %v", reported)
	}
}

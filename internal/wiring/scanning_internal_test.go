package wiring

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/config"
)

// TestNPMDirReachableByScanUser: a package folder the scan user cannot
// enter is refused at start, naming the folder in the way.
func TestNPMDirReachableByScanUser(t *testing.T) {
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	private := t.TempDir()
	if err := os.Chmod(filepath.Dir(private), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := npmFetcher(config.Config{ScanNPMDir: filepath.Join(private, "npm")}, nobody)
	if err == nil || !strings.Contains(err.Error(), "cannot enter "+private) || !strings.Contains(err.Error(), "--scan-npm-dir") {
		t.Fatalf("private folder: %v", err)
	}
	if _, err := npmFetcher(config.Config{ScanNPMDir: filepath.Join(private, "npm")}, nil); err != nil {
		t.Fatalf("no scan user: %v", err)
	}
	open := filepath.Join(private, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private, 0o711); err != nil {
		t.Fatal(err)
	}
	n, err := npmFetcher(config.Config{ScanNPMDir: filepath.Join(open, "not", "yet")}, nobody)
	if err != nil || n.Dir != filepath.Join(open, "not", "yet") {
		t.Fatalf("reachable folder not created yet: %v", err)
	}
}

// TestNPMFetcherSettings: the registry and the deadline reach the fetcher;
// a registry that is not a plain http(s) URL is refused at start.
func TestNPMFetcherSettings(t *testing.T) {
	n, err := npmFetcher(config.Config{ScanNPMDir: t.TempDir(), ScanNPMRegistry: "https://npm.example/", ScanNPMTimeout: time.Minute}, nil)
	if err != nil || n.Registry != "https://npm.example/" || n.Timeout != time.Minute {
		t.Fatalf("fetcher: %+v %v", n, err)
	}
	for _, r := range []string{"file:///etc", "https://user:secret@npm.example/", "npm.example"} {
		_, err := npmFetcher(config.Config{ScanNPMDir: t.TempDir(), ScanNPMRegistry: r}, nil)
		if err == nil || !strings.Contains(err.Error(), "--scan-npm-registry") || strings.Contains(err.Error(), "secret") {
			t.Errorf("registry %q: %v", r, err)
		}
	}
	if _, err := npmFetcher(config.Config{ScanNPMDir: t.TempDir(), ScanNPMTimeout: -time.Second}, nil); err == nil || !strings.Contains(err.Error(), "--scan-npm-timeout") {
		t.Errorf("negative timeout: %v", err)
	}
}

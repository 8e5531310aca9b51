package server

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
	_, err := npmFetcher(filepath.Join(private, "npm"), nobody)
	if err == nil || !strings.Contains(err.Error(), "cannot enter "+private) || !strings.Contains(err.Error(), "--scan-npm-dir") {
		t.Fatalf("private folder: %v", err)
	}
	if _, err := npmFetcher(filepath.Join(private, "npm"), nil); err != nil {
		t.Fatalf("no scan user: %v", err)
	}
	open := filepath.Join(private, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private, 0o711); err != nil {
		t.Fatal(err)
	}
	n, err := npmFetcher(filepath.Join(open, "not", "yet"), nobody)
	if err != nil || n.Dir != filepath.Join(open, "not", "yet") {
		t.Fatalf("reachable folder not created yet: %v", err)
	}
}

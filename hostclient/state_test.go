package hostclient_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/hostclient"
)

func TestStoresKeepTheHighestSequence(t *testing.T) {
	stores := map[string]hostclient.SequenceStore{
		"memory": hostclient.NewMemoryStore(),
		"file":   hostclient.NewFileStore(filepath.Join(t.TempDir(), "sub", "state.json")),
	}
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			if n, err := s.Last("https://a.example"); err != nil || n != 0 {
				t.Fatalf("empty store: %d %v", n, err)
			}
			for _, seq := range []int64{5, 9, 3} {
				if err := s.Save("https://a.example", seq); err != nil {
					t.Fatal(err)
				}
			}
			_ = s.Save("https://b.example", 2)
			if n, _ := s.Last("https://a.example"); n != 9 {
				t.Fatalf("a: %d, want 9", n)
			}
			if n, _ := s.Last("https://b.example"); n != 2 {
				t.Fatalf("b: %d, want 2", n)
			}
		})
	}
}

// TestFileStore: the file survives a new store on the same path, is
// private, leaves no temporary files, and a corrupt file is an error
// rather than a silent reset.
func TestFileStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := hostclient.NewFileStore(path).Save("https://a.example", 42); err != nil {
		t.Fatal(err)
	}
	if n, err := hostclient.NewFileStore(path).Last("https://a.example"); err != nil || n != 42 {
		t.Fatalf("reopened: %d %v", n, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("files left in %s: %v", dir, entries)
	}
	if err := os.WriteFile(path, []byte(`{"registries": {"https://a.example": {"sequence": 4`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := hostclient.NewFileStore(path)
	if _, err := s.Last("https://a.example"); err == nil || !strings.Contains(err.Error(), "state.json") {
		t.Fatalf("corrupt file: %v", err)
	}
	if err := s.Save("https://a.example", 50); err == nil {
		t.Fatal("Save overwrote a corrupt file")
	}
}

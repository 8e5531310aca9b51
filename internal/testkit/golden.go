package testkit

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// Golden compares got with the file at path byte for byte, or writes got to
// the file under -update (go test ./pkg/ -run TestX -update).
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run the test with -update if the change is intended):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

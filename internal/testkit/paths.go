package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the repository root (the folder holding go.mod), found
// from the test's working directory, so fixtures at the root do not depend
// on how deep the test's package sits.
func RepoRoot(t testing.TB) string {
	t.Helper()
	return filepath.Dir(TestdataDir())
}

// Testdata returns a path under the repository's top-level testdata folder.
func Testdata(t testing.TB, elem ...string) string {
	t.Helper()
	return TestdataDir(elem...)
}

// Files returns the files matching pattern (relative to the repository's
// testdata folder) and fails the test when there are none: fixtures that
// belong to the repository are never optional, so a move that loses them
// is a failure, not a skip.
func Files(t testing.TB, pattern string) []string {
	t.Helper()
	got, err := filepath.Glob(Testdata(t, pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatalf("no files match testdata/%s: the repository's fixtures are missing", pattern)
	}
	return got
}

// TestdataDir is Testdata for package-level variables, where no test is at
// hand yet: it panics when no go.mod is found above the working directory.
func TestdataDir(elem ...string) string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(append([]string{dir, "testdata"}, elem...)...)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("testkit: no go.mod above the test's folder")
		}
		dir = parent
	}
}

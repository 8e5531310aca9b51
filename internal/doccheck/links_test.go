package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// mdLink matches a Markdown link or image target: ](target) or
// ](target "title").
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// skipDirs are never documentation of this repository.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "artifacts": true, "bin": true}

// TestMarkdownLinksResolve: every relative link of every *.md file names a
// file or folder that exists inside the repository (a clone has nothing
// outside it).
func TestMarkdownLinksResolve(t *testing.T) {
	root := testkit.RepoRoot(t)
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".md") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, bad := range brokenLinks(root, path, string(data)) {
			t.Errorf("%s: %s", rel(root, path), bad)
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 5 {
		t.Fatalf("checked %d Markdown files: is the repository root right (%s)?", checked, root)
	}
}

// brokenLinks lists the relative links of the Markdown text of file that
// do not resolve inside root.
func brokenLinks(root, file, text string) []string {
	var out []string
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		abs := filepath.Clean(filepath.Join(filepath.Dir(file), target))
		if r, err := filepath.Rel(root, abs); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			out = append(out, "link "+m[1]+" points outside the repository")
			continue
		}
		if _, err := os.Stat(abs); err != nil {
			out = append(out, "link "+m[1]+" does not resolve: "+rel(root, abs)+" does not exist")
		}
	}
	return out
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}

// TestBrokenLinksAreFound: the checker flags a missing file and a link
// outside the repository, and passes a good one, a URL and an anchor.
func TestBrokenLinksAreFound(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "docs", "a.md"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	text := `[ok](docs/a.md) [anchor](#x) [url](https://example.com/x.md) [gone](docs/b.md) [out](../elsewhere/notes.md "t") [ok2](docs/a.md#part)`
	got := brokenLinks(root, filepath.Join(root, "README.md"), text)
	if len(got) != 2 || !strings.Contains(got[0], "docs/b.md does not exist") || !strings.Contains(got[1], "outside the repository") {
		t.Fatalf("broken links = %q", got)
	}
}

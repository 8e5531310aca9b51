package scan

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// TestNPMFilesystemRepeatedScans reads the reference filesystem server
// (installed by .ci/run) twice: the pins must be identical, and its
// descriptions of paths must not read as poisoning.
func TestNPMFilesystemRepeatedScans(t *testing.T) {
	bin, err := exec.LookPath("mcp-server-filesystem")
	if err != nil {
		testkit.Unavailable(t, "%s", "@modelcontextprotocol/server-filesystem@2026.8.31 is not installed")
	}
	bin, _ = filepath.Abs(bin)
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	target := StdioTarget{Command: bin, Args: []string{root}}
	first := mustRead(t, Limits{Deadline: 2 * time.Minute}, target)
	second := mustRead(t, Limits{Deadline: 2 * time.Minute}, target)
	if len(first.Tools.Tools) < 5 {
		t.Fatalf("filesystem server lists %d tools", len(first.Tools.Tools))
	}
	if first.Pins.ToolDefinitionHash != second.Pins.ToolDefinitionHash || first.Pins.SchemaHash != second.Pins.SchemaHash {
		t.Fatalf("pins differ across scans: %+v vs %+v", first.Pins, second.Pins)
	}
	if len(first.Findings) != 0 {
		t.Fatalf("findings on a stable server: %v", first.Findings)
	}
	// A hard negative: its descriptions talk about files and paths.
	for _, f := range diffreview.Poisoning(first.Tools.Tools, first.Tools.Instructions) {
		if f.Severity.Rank() >= finding.Medium.Rank() {
			t.Errorf("reference filesystem server flagged: %+v", f)
		}
	}
}

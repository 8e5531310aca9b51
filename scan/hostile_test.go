package scan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/pin"
)

func TestStdioLimits(t *testing.T) {
	tests := []struct {
		name      string
		lim       Limits
		cfg       sdkConfig
		fragments []string
	}{
		{"response bytes", Limits{MaxResponseBytes: 64 << 10}, sdkConfig{DescBytes: 200 << 10}, []string{"MaxResponseBytes 65536"}},
		{"total bytes", Limits{MaxTotalBytes: 100 << 10}, sdkConfig{DescBytes: 60 << 10}, []string{"MaxTotalBytes 102400"}},
		{"pages", Limits{MaxPages: 3}, sdkConfig{Tools: 10, PageSize: 1}, []string{"MaxPages 3", "listing 1"}},
		{"tools", Limits{MaxTools: 10}, sdkConfig{Tools: 11, PageSize: 4}, []string{"MaxTools 10", "listing 1"}},
		{"schema depth", Limits{}, sdkConfig{SchemaDepth: 70}, []string{"MaxSchemaDepth 64", "/result/tools/0/inputSchema/properties/a"}},
		{"schema depth set", Limits{MaxSchemaDepth: 8}, sdkConfig{SchemaDepth: 5}, []string{"MaxSchemaDepth 8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := read(t, tt.lim, stdioFixture(t, "sdk", tt.cfg, nil))
			wantErr(t, err, ErrLimit, tt.fragments...)
			if snap.Tools != nil || snap.Pins.ToolDefinitionHash != "" {
				t.Fatal("a failed scan returned pins")
			}
		})
	}
}

// Strictly invalid JSON fails the scan, naming the problem and where it is,
// although the SDK's own decoder accepts it.
func TestStdioInvalidJSON(t *testing.T) {
	tests := []struct {
		file      string
		fragments []string
	}{
		{"dup_member.json", []string{"duplicate", "city", "/result/tools/0/inputSchema/properties"}},
		{"lone_surrogate.json", []string{"surrogate", "/result/tools/0/description"}},
		{"huge_number.json", []string{"1e400", "IEEE 754"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := read(t, Limits{}, stdioFixture(t, "raw", onePage(testPage(t, tt.file)), nil))
			wantErr(t, err, ErrInvalid, tt.fragments...)
			var perr *pin.Error
			if !errors.As(err, &perr) {
				t.Fatalf("%v does not wrap a *pin.Error", err)
			}
		})
	}
}

func TestStdioCursorLoop(t *testing.T) {
	cfg := rawConfig{Pages: map[string][]byte{
		"":   testPage(t, "loop_page1.json"),
		"c1": testPage(t, "loop_page2.json"),
		"c2": testPage(t, "loop_page3.json"),
	}}
	_, err := read(t, Limits{}, stdioFixture(t, "raw", cfg, nil))
	wantErr(t, err, ErrProtocol, "cursor loop", `"c1"`, "page 3")
}

func TestStdioDuplicateToolAcrossPages(t *testing.T) {
	cfg := rawConfig{Pages: map[string][]byte{"": testPage(t, "dup_across_page1.json"), "p2": testPage(t, "dup_across_page2.json")}}
	_, err := read(t, Limits{}, stdioFixture(t, "raw", cfg, nil))
	wantErr(t, err, ErrInvalid, "duplicate tool name", `"a"`)
}

func TestStdioErrorResponse(t *testing.T) {
	cfg := rawConfig{Pages: map[string][]byte{}}
	_, err := read(t, Limits{}, stdioFixture(t, "raw", cfg, nil))
	wantErr(t, err, ErrProtocol, "tools/list", "unknown cursor")
}

// A server that forks a helper into its process group does not leave it
// running: the whole group is killed.
func TestStdioKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	mustRead(t, Limits{}, stdioFixture(t, "sdk", sdkConfig{PIDFile: pidFile}, nil))
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("grandchild %d still running after the scan", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie waiting for init counts as gone).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z") && !strings.HasPrefix(after, "X")
}

func TestStdioEnvironmentScrubbed(t *testing.T) {
	t.Setenv("MCPREG_SCAN_TEST_SECRET", "hunter2")
	target := stdioFixture(t, "sdk", sdkConfig{EnvTool: true, Tools: 1}, map[string]string{"NAMED": "yes"})
	target.Dir = t.TempDir()
	snap := mustRead(t, Limits{}, target)
	desc := envDescription(t, snap)
	if strings.Contains(desc, "hunter2") || strings.Contains(desc, "MCPREG_SCAN_TEST_SECRET") {
		t.Fatalf("the child saw the parent's secret:\n%s", desc)
	}
	work := filepath.Join(target.Dir, "mcpreg-scan-")
	for _, want := range []string{"\nNAMED=yes", "\nPATH=" + DefaultPath + "\n", "\nHOME=" + work, "\ncwd=" + work, "\nTMPDIR=" + work} {
		if !strings.Contains(desc, want) {
			t.Fatalf("environment lacks %q:\n%s", want, desc)
		}
	}
	if n := len(strings.Split(desc, "\n")); n != 2+6 {
		t.Fatalf("the child saw %d lines, want uid, cwd and 6 variables:\n%s", n, desc)
	}
	if left, _ := os.ReadDir(target.Dir); len(left) != 0 {
		t.Fatalf("working directory not removed: %v", left)
	}
}

// envDescription returns the description of the fixture's "env" tool.
func envDescription(t *testing.T, snap *Snapshot) string {
	t.Helper()
	for _, tool := range snap.Tools.Tools {
		if tool.Name == "env" {
			var v struct{ Description string }
			if err := jsonUnmarshal(tool.Raw, &v); err != nil {
				t.Fatal(err)
			}
			return v.Description
		}
	}
	t.Fatal("no env tool")
	return ""
}

func TestStdioStderrCapped(t *testing.T) {
	target := StdioTarget{Command: "sh", Args: []string{"-c", `printf 'boom %.0s' $(seq 1 100) >&2; exit 3`}}
	snap, err := read(t, Limits{MaxStderrBytes: 50}, target)
	if err == nil || errors.Is(err, ErrTimeout) {
		t.Fatalf("error %v; want a failure before the deadline", err)
	}
	if snap.Stderr != strings.Repeat("boom ", 10) || !snap.StderrTruncated {
		t.Fatalf("stderr %q truncated %v", snap.Stderr, snap.StderrTruncated)
	}
}

func TestStdioCommandNotFound(t *testing.T) {
	_, err := read(t, Limits{}, StdioTarget{Command: "no-such-mcp-server"})
	if err == nil || !strings.Contains(err.Error(), `"no-such-mcp-server" not found`) {
		t.Fatalf("error %v", err)
	}
	_, err = read(t, Limits{}, StdioTarget{Command: "bin/server"})
	if err == nil || !strings.Contains(err.Error(), "must be absolute") {
		t.Fatalf("error %v", err)
	}
}

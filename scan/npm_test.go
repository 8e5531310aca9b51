package scan

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/internal/testkit"
)

// The npm reference server the scan is tested against, pinned. CI installs
// it beforehand (npm install -g) so tests do not download at run time;
// without it they fall back to npx, and without npx they are skipped, or
// fail when MCPREG_TEST_REQUIRE_ALL=1.
const (
	everythingPackage = "@modelcontextprotocol/server-everything"
	everythingVersion = "2026.8.31"
	everythingBin     = "mcp-server-everything"
)

// everythingCommand returns how to start the pinned reference server with
// transport ("stdio" or "streamableHttp").
func everythingCommand(t *testing.T, transport string) (string, []string) {
	t.Helper()
	if bin, err := exec.LookPath(everythingBin); err == nil {
		v, err := installedVersion(bin)
		if err == nil && v == everythingVersion {
			abs, _ := filepath.Abs(bin)
			return abs, []string{transport}
		}
		t.Logf("installed %s is version %q (%v), not %s: using npx", everythingBin, v, err, everythingVersion)
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		testkit.Unavailable(t, "%s", fmt.Sprintf("neither %s@%s nor npx is installed", everythingPackage, everythingVersion))
	}
	return npx, []string{"-y", everythingPackage + "@" + everythingVersion, transport}
}

// installedVersion reads the version of the package whose bin script is bin.
func installedVersion(bin string) (string, error) {
	script, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(script), "..", "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(data, &pkg); err != nil || pkg.Name != everythingPackage {
		return "", fmt.Errorf("%s is not %s", bin, everythingPackage)
	}
	return pkg.Version, nil
}

func TestNPMEverythingStdio(t *testing.T) {
	cmd, args := everythingCommand(t, "stdio")
	snap := mustRead(t, Limits{Deadline: 3 * time.Minute}, StdioTarget{Command: cmd, Args: args})
	checkEverything(t, snap)
}

func TestNPMEverythingHTTP(t *testing.T) {
	cmd, args := everythingCommand(t, "streamableHttp")
	port := startEverythingHTTP(t, cmd, args)
	snap := mustRead(t, Limits{}, HTTPTarget{URL: "http://127.0.0.1:" + port + "/mcp"})
	checkEverything(t, snap)
}

// checkEverything checks what every scan of the reference server shows.
func checkEverything(t *testing.T, snap *Snapshot) {
	t.Helper()
	checkPins(t, snap)
	echo := ""
	for _, tool := range snap.Tools.Tools {
		if tool.Name == "echo" {
			echo = string(tool.Raw)
		}
	}
	if !strings.Contains(echo, `"execution":{"taskSupport":"forbidden"}`) {
		t.Fatalf("echo tool raw %q lacks its execution member", echo)
	}
	if !strings.Contains(string(snap.ServerInfo), `"mcp-servers/everything"`) || snap.Instructions == nil || len(snap.Tools.Tools) < 5 {
		t.Fatalf("server info %s, instructions %v, %d tools", snap.ServerInfo, snap.Instructions != nil, len(snap.Tools.Tools))
	}
	if len(snap.Findings) != 0 {
		t.Fatalf("findings on the reference server: %+v", snap.Findings)
	}
	checkEverythingPrompts(t, snap)
	t.Logf("%d tools, %d pages, tool definitions %s; %d prompts, %d resources, %d resource templates", len(snap.Tools.Tools), snap.Pages,
		snap.Pins.ToolDefinitionHash, len(snap.Prompts), len(snap.Resources), len(snap.ResourceTemplates))
}

// checkEverythingPrompts: the reference server's prompt without arguments
// carries its messages, the one with a required argument does not; its
// resources and templates are read, and its model file is a tools file.
func checkEverythingPrompts(t *testing.T, snap *Snapshot) {
	t.Helper()
	messages := map[string]string{}
	for _, p := range readListed(t, snap.Prompts) {
		messages[p.Name] = string(p.Messages)
	}
	if !strings.Contains(messages["simple-prompt"], "This is a simple prompt without arguments.") || messages["args-prompt"] != "" {
		t.Fatalf("prompts %v", messages)
	}
	if len(snap.Resources) == 0 || len(snap.ResourceTemplates) == 0 {
		t.Fatalf("%d resources, %d resource templates", len(snap.Resources), len(snap.ResourceTemplates))
	}
	checkModelFile(t, snap)
}

// startEverythingHTTP runs the reference server's Streamable HTTP transport
// on a free loopback port until the test ends.
func startEverythingHTTP(t *testing.T, cmd string, args []string) string {
	t.Helper()
	port := testkit.FreePort(t)
	c := exec.Command(cmd, args...)
	c.Env = []string{"PATH=" + DefaultPath, "HOME=" + t.TempDir(), "PORT=" + port}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL); _ = c.Wait() })
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(listening)
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(3 * time.Minute):
		t.Fatal("the reference server did not start")
	}
	return port
}

package scan

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// The test binary doubles as the stdio fixture servers: started with
// fixtureEnv set (the scan passes it through its scrubbed environment), it
// serves the fixture that variable names, configured by configEnv, instead
// of running tests.
const (
	fixtureEnv = "MCPREG_SCAN_FIXTURE"
	configEnv  = "MCPREG_SCAN_FIXTURE_CONFIG"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(fixtureEnv); name != "" {
		if err := runFixture(name, os.Getenv(configEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runFixture serves fixture name over stdio until stdin closes.
func runFixture(name, config string) error {
	switch name {
	case "sdk":
		var cfg sdkConfig
		if err := json.Unmarshal([]byte(config), &cfg); err != nil {
			return err
		}
		return serveSDKStdio(cfg)
	case "raw":
		var cfg rawConfig
		if err := json.Unmarshal([]byte(config), &cfg); err != nil {
			return err
		}
		return cfg.serveStdio(os.Stdin, os.Stdout)
	}
	return fmt.Errorf("unknown fixture %q", name)
}

// stdioFixture returns a target that runs this test binary as fixture name
// with cfg, plus extra environment.
func stdioFixture(t testing.TB, name string, cfg any, extra map[string]string) StdioTarget {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{fixtureEnv: name, configEnv: string(data)}
	for k, v := range extra {
		env[k] = v
	}
	return StdioTarget{Command: exe, Env: env}
}

package cli

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/hostclient"
)

func TestDiscoveryAndHostValidation(t *testing.T) {
	withToken := map[string]string{EnvServer: unreachable, EnvToken: "mcpreg_x"}
	noToken := map[string]string{EnvServer: unreachable}
	config := `{"mcpServers": {"w": {"command": "npx", "args": ["-y", "@acme/w@1.0.0"]}}}`
	tests := []struct {
		name    string
		env     map[string]string
		stdin   string
		args    []string
		wantErr error
		says    string
	}{
		{"get without token", noToken, "", []string{"discovery", "get"}, errNoToken, ""},
		{"version without name", withToken, "", []string{"discovery", "get", "--version", "1.0.0"}, nil, "--version \"1.0.0\" needs --name"},
		{"key without verify", withToken, "", []string{"discovery", "get", "--key", "k.pem"}, errTrustWithoutVerify, ""},
		{"state without verify", withToken, "", []string{"discovery", "get", "--state", "s.json"}, errTrustWithoutVerify, ""},
		{"unreadable key", withToken, "", []string{"discovery", "get", "--verify", "--key", "/nonexistent/k.pem"}, nil, "--key: open /nonexistent/k.pem"},
		{"check without config", withToken, "", []string{"host", "check"}, nil, `"config" not set`},
		{"check without token", noToken, config, []string{"host", "check", "--config", "-"}, errNoToken, ""},
		{"check of a bad config", withToken, `{"mcpServers": {"w": {}}}`, []string{"host", "check", "--config", "-"}, nil, `--config -: host configuration: server "w": neither`},
		{"check with a bad key", withToken, config, []string{"host", "check", "--config", "-", "--key", "-"}, errStdinTwice, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, tt.env, tt.stdin, tt.args...)
			if r.err == nil || (tt.wantErr != nil && !errors.Is(r.err, tt.wantErr)) || !strings.Contains(r.err.Error(), tt.says) {
				t.Fatalf("error %v, want %v saying %q", r.err, tt.wantErr, tt.says)
			}
		})
	}
}

func TestHostCheckFailure(t *testing.T) {
	ok := []hostclient.ServerResult{{Status: hostclient.StatusApproved}, {Status: hostclient.StatusWarning}}
	if err := hostCheckFailure(ok); err != nil {
		t.Fatalf("approved and warned servers failed the check: %v", err)
	}
	bad := slices.Concat(ok, []hostclient.ServerResult{{Status: hostclient.StatusUnreachable}, {Status: hostclient.StatusUnapproved},
		{Status: hostclient.StatusUnapproved}})
	if err := hostCheckFailure(bad); err == nil || err.Error() != "host check: 3 of 5 servers must not be used: 2 unapproved, 1 unreachable" {
		t.Fatalf("failure: %v", err)
	}
	partial := slices.Concat(ok, []hostclient.ServerResult{{Status: hostclient.StatusPartial, BlockedTools: []string{"get_forecast"}}})
	if err := hostCheckFailure(partial); err == nil || err.Error() != "host check: 1 of 3 servers must not be used: 1 drifted (tools blocked)" {
		t.Fatalf("a server with blocked tools: %v", err)
	}
}

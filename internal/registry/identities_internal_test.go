package registry

import (
	"errors"
	"strings"
	"testing"

	livescan "github.com/mcpreg/mcpreg/scan"
)

// Credentials go where the issue says and nowhere else: headers to a
// remote, variables to a package's process; their values (and a bearer
// token alone) are redacted from standard error and errors.
func TestCredentialPlacementAndRedaction(t *testing.T) {
	c := credential{label: "admin", CredentialInput: CredentialInput{
		Headers: map[string]string{"Authorization": "Bearer tok-canary-123"}, Env: map[string]string{"API_KEY": "env-canary-456"},
		Origin: "https://x.example", Package: "@acme/weather-mcp"}}
	h, err := withCredential(livescan.HTTPTarget{URL: "https://X.example/mcp", Headers: map[string]string{"X-Other": "1"}}, c, "")
	if err != nil {
		t.Fatal(err)
	}
	if ht := h.(livescan.HTTPTarget); ht.Headers["Authorization"] != "Bearer tok-canary-123" || ht.Headers["X-Other"] != "1" {
		t.Fatalf("http target headers %v", ht.Headers)
	}
	base := livescan.StdioTarget{Command: "srv", Env: map[string]string{"LANG": "C"}}
	s, err := withCredential(base, c, "@acme/weather-mcp")
	if err != nil {
		t.Fatal(err)
	}
	if st := s.(livescan.StdioTarget); st.Env["API_KEY"] != "env-canary-456" || st.Env["LANG"] != "C" || base.Env["API_KEY"] != "" {
		t.Fatalf("stdio env %v (base %v)", st.Env, base.Env)
	}
	// An owner pointing a version at a server or package of their own gets
	// no credential there.
	if _, err := withCredential(livescan.HTTPTarget{URL: "https://evil.example/mcp"}, c, ""); !errors.Is(err, ErrFailedPrecondition) ||
		!strings.Contains(err.Error(), "may be sent to https://x.example only") {
		t.Errorf("another origin: %v", err)
	}
	if _, err := withCredential(livescan.HTTPTarget{URL: "http://x.example/mcp"}, c, ""); err == nil {
		t.Error("another scheme got the headers")
	}
	if _, err := withCredential(base, c, "@evil/collector"); !errors.Is(err, ErrFailedPrecondition) || !strings.Contains(err.Error(), "@acme/weather-mcp only") {
		t.Errorf("another package: %v", err)
	}
	snap := &livescan.Snapshot{Stderr: "token tok-canary-123 and key env-canary-456 and Bearer tok-canary-123"}
	redactStderr(snap, c.secretsOf())
	if strings.Contains(snap.Stderr, "canary") || !strings.Contains(snap.Stderr, redacted) {
		t.Fatalf("stderr %q", snap.Stderr)
	}
	err = redactErr(errors.Join(livescan.ErrProtocol, errors.New("server said env-canary-456")), c.secretsOf())
	if strings.Contains(err.Error(), "canary") || !errors.Is(err, livescan.ErrProtocol) {
		t.Fatalf("error %v", err)
	}
}

package client

import (
	"context"
	"errors"
	"net/http"
	"testing"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func TestAttestationRequests(t *testing.T) {
	ctx := context.Background()
	const name, version = "io.github.acme/weather", "1.0.0-rc.1+build"
	const base = "/v1/servers/io.github.acme/weather/versions/1.0.0-rc.1+build"
	tests := []struct {
		name               string
		call               func(c *Client) error
		method, path, body string
	}{
		{"add by index", func(c *Client) error {
			_, err := c.AddAttestation(ctx, name, version, &mcpregv1.AttestationInput{PackageIndex: 1, Bundle: `{"b":1}`})
			return err
		}, "POST", base + "/attestations", `{"attestation":{"packageIndex":1,"bundle":"{\"b\":1}"}}`},
		{"add by identifier with digest", func(c *Client) error {
			_, err := c.AddAttestation(ctx, name, version, &mcpregv1.AttestationInput{
				PackageIdentifier: "@acme/weather", Bundle: "{}", ArtifactDigest: "sha256:ab"})
			return err
		}, "POST", base + "/attestations",
			`{"attestation":{"packageIdentifier":"@acme/weather","bundle":"{}","artifactDigest":"sha256:ab"}}`},
		{"verify", func(c *Client) error {
			_, err := c.VerifyAttestation(ctx, &mcpregv1.VerifyAttestationRequest{Bundle: "{}", ArtifactDigest: "sha256:ab",
				Policy: &mcpregv1.AttestationPolicy{PublicKeys: []string{"PEM"}}})
			return err
		}, "POST", "/v1/attestations:verify", `{"bundle":"{}","artifactDigest":"sha256:ab","policy":{"publicKeys":["PEM"]}}`},
		{"reverify", func(c *Client) error { _, err := c.ReverifyAttestations(ctx); return err },
			"POST", "/v1/attestations:reverify", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{status: http.StatusOK, body: "{}"}
			if err := tt.call(newTestClient(t, rec, "")); err != nil {
				t.Fatal(err)
			}
			got := rec.request()
			if got.method != tt.method || got.path != tt.path || got.query != "" {
				t.Errorf("request = %s %s?%s, want %s %s", got.method, got.path, got.query, tt.method, tt.path)
			}
			assertJSONEqual(t, got.body, tt.body)
			assertHeaders(t, got, true)
		})
	}
}

func TestAttestationArgumentsRejectedBeforeSending(t *testing.T) {
	c := noNetwork(t)
	ctx := context.Background()
	bundle := &mcpregv1.AttestationInput{Bundle: "{}"}
	policy := &mcpregv1.AttestationPolicy{PublicKeys: []string{"PEM"}}
	calls := map[string]func() error{
		"add bad name":      func() error { _, err := c.AddAttestation(ctx, "weather", "1.0.0", bundle); return err },
		"add empty version": func() error { _, err := c.AddAttestation(ctx, "io.github.acme/weather", "", bundle); return err },
		"add no bundle":     func() error { _, err := c.AddAttestation(ctx, "io.github.acme/weather", "1", nil); return err },
		"verify no bundle": func() error {
			_, err := c.VerifyAttestation(ctx, &mcpregv1.VerifyAttestationRequest{ArtifactDigest: "sha256:ab", Policy: policy})
			return err
		},
		"verify no digest": func() error {
			_, err := c.VerifyAttestation(ctx, &mcpregv1.VerifyAttestationRequest{Bundle: "{}", Policy: policy})
			return err
		},
		"verify no policy": func() error {
			_, err := c.VerifyAttestation(ctx, &mcpregv1.VerifyAttestationRequest{Bundle: "{}", ArtifactDigest: "sha256:ab"})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
		})
	}
}

// The results decode the way the gateway writes them: int64 as strings.
func TestAttestationResultsDecode(t *testing.T) {
	rec := &recorder{status: http.StatusOK, body: `{"attestation":{"id":"9","verified":false,"error":"SAN mismatch","logIndex":"17"}}`}
	c := newTestClient(t, rec, "")
	res, err := c.VerifyAttestation(context.Background(), &mcpregv1.VerifyAttestationRequest{Bundle: "{}",
		ArtifactDigest: "sha256:ab", Policy: &mcpregv1.AttestationPolicy{}})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.GetAttestation(); a.GetId() != 9 || a.GetVerified() || a.GetError() != "SAN mismatch" || a.GetLogIndex() != 17 {
		t.Fatalf("decoded %v", res)
	}
	rec = &recorder{status: http.StatusOK, body: `{"checked":3,"passed":1,"failed":2,"quarantined":["io.github.acme/weather@1.0.0"]}`}
	rep, err := newTestClient(t, rec, "").ReverifyAttestations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.GetChecked() != 3 || rep.GetFailed() != 2 || len(rep.GetQuarantined()) != 1 {
		t.Fatalf("decoded %v", rep)
	}
}

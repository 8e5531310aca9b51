package server_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/buildinfo"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/ent/token"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func TestOperatorEndpoints(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect)
		r := call(t, "GET", in.URL+"/openapi.json", "", nil)
		var doc map[string]any
		if r.Status != 200 || json.Unmarshal(r.Body, &doc) != nil || doc["paths"].(map[string]any)["/v1/versions"] == nil {
			t.Fatalf("openapi: %d %.200s", r.Status, r.Body)
		}
		if v := doc["info"].(map[string]any)["version"]; v != buildinfo.Version() || v == "version not set" {
			t.Fatalf("openapi info.version %q, want this build's %q", v, buildinfo.Version())
		}
		for _, path := range []string{"/schemas/contract.schema.json", "/schemas/contract-normalized.schema.json"} {
			r := call(t, "GET", in.URL+path, "", nil)
			if r.Status != 200 || !strings.Contains(string(r.Body), `"$schema"`) {
				t.Fatalf("%s: %d", path, r.Status)
			}
		}
		if r := call(t, "GET", in.URL+"/readyz", "", nil); r.Status != 200 {
			t.Fatalf("readyz: %d", r.Status)
		}
		conn, err := grpc.NewClient(in.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		hr, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
		if err != nil || hr.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("grpc health: %v %v", hr, err)
		}
		tok := in.Token(t, "ci", registry.RoleOwner, "io.github.acme")
		big := &mcpregv1.SubmitVersionRequest{ServerJson: serverJSON("io.github.acme/big", "1.0.0"), Tools: strings.Repeat(" ", 9<<20) + "[]"}
		_, err = mcpregv1.NewRegistryServiceClient(conn).SubmitVersion(withToken(context.Background(), tok), big)
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("oversized gRPC message: %v", err)
		}
		m := call(t, "GET", in.Metrics+"/metrics", "", nil)
		if !strings.Contains(string(m.Body), "grpc_server_handled_total") || !strings.Contains(string(m.Body), "mcpreg_http_requests_total") {
			t.Fatalf("metrics lack request counters")
		}
	})
}

// TestSecretsNeverLogged drives calls with tokens, including failing ones,
// and checks that no token secret reaches the log.
func TestSecretsNeverLogged(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect)
		owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
		admin := in.Token(t, "root", registry.RoleAdmin)
		call(t, "POST", in.URL+"/v1/versions", owner, submitBody("io.github.acme/weather", "1.0.0", toolsJSON))
		call(t, "POST", in.URL+"/v1/versions", owner, map[string]any{"serverJson": "{", "tools": "x"})
		call(t, "GET", in.URL+"/v1/audit/events", owner, nil)
		created := call(t, "POST", in.URL+"/v1/tokens", admin, map[string]any{"principal": "new-host", "role": "host"})
		newSecret, _ := created.json(t)["secret"].(string)
		wrong := "mcpreg_thisisnotarealtokenbutlookslikeoneXXXXXXX"
		call(t, "GET", in.URL+"/v1/servers", wrong, nil)
		logs := in.Logs.String()
		if !strings.Contains(logs, `"msg":"rpc"`) {
			t.Fatalf("no request logs captured:\n%s", logs)
		}
		for _, secret := range []string{owner, admin, newSecret, wrong} {
			if secret == "" || strings.Contains(logs, secret) {
				t.Fatalf("a token secret (%q) appears in the logs", secret)
			}
		}
		// Through ent, so the query is written in the dialect's own placeholders.
		if n, err := in.Store.Client.Token.Query().Where(token.SecretHash(owner)).Count(t.Context()); err != nil || n != 0 {
			t.Fatalf("a token is stored in clear (%d rows, %v)", n, err)
		}
	})
}

func TestTLS(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		cert, key, pool := selfSigned(t)
		in := servertest.Start(t, dialect, func(c *config.Config) { c.TLSCert, c.TLSKey = cert, key })
		cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
		var resp *http.Response
		var err error
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if resp, err = cl.Get(in.URL + "/healthz"); err == nil {
				break
			}
		}
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("https healthz: %v", err)
		}
		resp.Body.Close()
		if plain, err := http.Get(strings.Replace(in.URL, "https", "http", 1) + "/healthz"); err == nil {
			plain.Body.Close()
			if plain.StatusCode == http.StatusOK {
				t.Fatal("plain HTTP served on the TLS port")
			}
		}
		conn, err := grpc.NewClient(in.GRPCAddr, grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, "127.0.0.1")))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		if _, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
			t.Fatalf("grpc over TLS: %v", err)
		}
		// The REST gateway still reaches gRPC (in-process) when TLS is on.
		req, _ := http.NewRequest("GET", in.URL+"/v1/whoami", nil)
		req.Header.Set("Authorization", "Bearer "+in.Token(t, "tls-user", registry.RoleHost))
		resp, err = cl.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("REST over TLS: %v %v", resp, err)
		}
		resp.Body.Close()
	})
}

func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mcpreg-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(k)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return certFile, keyFile, pool
}

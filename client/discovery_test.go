package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

func TestResolveDiscoveryReturnsTheBodyAsSent(t *testing.T) {
	const envelope = `{"payloadType":"application/vnd.mcpreg.discovery+json","payload":"e30=","signatures":[]}`
	rec := &recorder{status: http.StatusOK, body: envelope}
	c := newTestClient(t, rec, "/prefix")
	got, err := c.ResolveDiscovery(context.Background(), &mcpregv1.ResolveServersRequest{Name: "io.github.acme/weather",
		Version: "1.0.0", Namespace: "io.github.acme", Owner: "acme", PageSize: 10, PageToken: "t/k"})
	if err != nil || string(got) != envelope {
		t.Fatalf("%v %s", err, got)
	}
	r := rec.request()
	if r.method != "GET" || r.path != "/prefix/v1/discovery/servers" ||
		r.query != "name=io.github.acme%2Fweather&namespace=io.github.acme&owner=acme&pageSize=10&pageToken=t%2Fk&version=1.0.0" ||
		r.header.Get("Authorization") != "Bearer "+testToken {
		t.Fatalf("request %+v", r)
	}
}

func TestDiscoveryErrors(t *testing.T) {
	rec := &recorder{status: http.StatusForbidden, body: `{"code":7,"message":"role owner does not read discovery"}`}
	c := newTestClient(t, rec, "")
	if _, err := c.ResolveDiscovery(context.Background(), &mcpregv1.ResolveServersRequest{}); !errors.Is(err, ErrPermissionDenied) ||
		!strings.Contains(err.Error(), "role owner") {
		t.Fatalf("resolve: %v", err)
	}
	if _, err := c.CheckConnection(context.Background(), &mcpregv1.CheckConnectionRequest{Name: "a/b"}); !errors.Is(err, ErrPermissionDenied) {
		t.Fatalf("check: %v", err)
	}
	big := newTestClient(t, &recorder{status: http.StatusOK, body: strings.Repeat("x", 100)}, "", WithMaxResponseBytes(10))
	if _, err := big.ResolveDiscovery(context.Background(), &mcpregv1.ResolveServersRequest{}); !errors.Is(err, ErrResponseTooLarge) {
		t.Fatalf("large body: %v", err)
	}
}

func TestCheckConnectionAndKeys(t *testing.T) {
	rec := &recorder{status: http.StatusOK, body: `{"verdict":"drifted","action":"quarantine","tools":[{"name":"t","verdict":"drifted"}],"futureField":1}`}
	c := newTestClient(t, rec, "")
	resp, err := c.CheckConnection(context.Background(), &mcpregv1.CheckConnectionRequest{Name: "a/b", Tools: `{"tools":[]}`})
	if err != nil || resp.GetAction() != "quarantine" || resp.GetTools()[0].GetName() != "t" {
		t.Fatalf("%v %v", err, resp)
	}
	if r := rec.request(); r.method != "POST" || r.path != "/v1/discovery/check" || !strings.Contains(r.body, `"tools":"{\"tools\":[]}"`) {
		t.Fatalf("request %+v", r)
	}
	rec.body = `{"keys":[{"keyId":"ed25519:ab","publicKey":"PEM","algorithm":"ed25519","status":"current"}]}`
	keys, err := c.DiscoveryKeys(context.Background())
	if err != nil || len(keys) != 1 || keys[0].ID != "ed25519:ab" || rec.request().path != DiscoveryKeysPath {
		t.Fatalf("%v %+v", err, keys)
	}
	rec.body = `not json`
	if _, err := c.DiscoveryKeys(context.Background()); err == nil {
		t.Fatal("decoded garbage")
	}
}

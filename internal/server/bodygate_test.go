package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/store"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// bigBody is the size of the bodies sent without a valid token: just under
// the default --max-body-bytes (8 MiB), which they used to be read up to.
const bigBody = 8<<20 - 4096

// readAllowance is what the service may read of a refused body: the
// unauthenticated cap (64 KiB), what net/http reads to keep a connection
// open (256 KiB) and buffers; far below the body.
const readAllowance = 512 << 10

// TestUnauthenticatedBodiesNotRead: a large POST without a valid token is
// refused (401 on the API, 413 on the web UI's forms) after the service
// has read little of it, with a Content-Length and chunked; one with a
// valid token is still read in full.
func TestUnauthenticatedBodiesNotRead(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	owner := in.Token(t, "acme-ci", registry.RoleOwner, "io.github.acme")
	for _, tc := range []struct {
		name, path, auth string
		chunked          bool
		want             int
		msg              string
	}{
		{"no token, length", "/v1/versions", "", false, http.StatusUnauthorized, "missing bearer token"},
		{"no token, chunked", "/v1/versions", "", true, http.StatusUnauthorized, "missing bearer token"},
		{"unknown token", "/v1/versions", "Bearer mcpreg_" + strings.Repeat("x", 40), false, http.StatusUnauthorized, "unknown token"},
		{"malformed header", "/v1/versions", "Basic YWxpY2U6c2VjcmV0", true, http.StatusUnauthorized, "malformed Authorization"},
		{"approve", "/v1/servers/io.github.acme/weather/versions/1.0.0/approve", "", false, http.StatusUnauthorized, "missing bearer token"},
		{"sign-in form", "/signin", "", true, http.StatusRequestEntityTooLarge, "65536"},
		{"no such path", "/nowhere", "", false, http.StatusRequestEntityTooLarge, "65536"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := in.HTTPRead.Load()
			code, body := postRaw(t, in.URL, tc.path, tc.auth, bigBody, tc.chunked)
			read := in.HTTPRead.Load() - before
			t.Logf("%d after reading %d of %d bytes: %s", code, read, bigBody, body)
			if code != tc.want || !strings.Contains(body, tc.msg) {
				t.Fatalf("got %d %s, want %d mentioning %q", code, body, tc.want, tc.msg)
			}
			if read > readAllowance {
				t.Fatalf("the service read %d bytes of a %d-byte body it refused, want at most %d", read, bigBody, readAllowance)
			}
		})
	}
	t.Run("valid token", func(t *testing.T) {
		const size = 1 << 20
		before := in.HTTPRead.Load()
		code, body := postRaw(t, in.URL, "/v1/versions", "Bearer "+owner, size, false)
		if read := in.HTTPRead.Load() - before; code == http.StatusUnauthorized || code == http.StatusRequestEntityTooLarge || read < size {
			t.Fatalf("with a valid token: %d %s after reading %d bytes; want the %d-byte body read and judged", code, body, read, size)
		}
	})
}

// TestUnauthenticatedGRPCNotDecoded: over gRPC a call without a valid
// token is refused with Unauthenticated from its headers, before its
// message is read and decoded.
func TestUnauthenticatedGRPCNotDecoded(t *testing.T) {
	in := servertest.Start(t, store.DialectSQLite)
	conn, err := grpc.NewClient(in.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	client := mcpregv1.NewRegistryServiceClient(conn)
	big := &mcpregv1.SubmitVersionRequest{ServerJson: strings.Repeat("x", bigBody-1024)}
	for _, tc := range []struct{ name, auth, msg string }{
		{"no token", "", "missing bearer token"},
		{"unknown token", "Bearer mcpreg_" + strings.Repeat("y", 40), "unknown token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			if tc.auth != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "authorization", tc.auth)
			}
			before := in.GRPCRead.Load()
			_, err := client.SubmitVersion(ctx, big)
			time.Sleep(100 * time.Millisecond) // let the transport settle
			read := in.GRPCRead.Load() - before
			t.Logf("%v after reading %d of %d bytes", err, read, bigBody)
			if status.Code(err) != codes.Unauthenticated || !strings.Contains(status.Convert(err).Message(), tc.msg) {
				t.Fatalf("got %v, want Unauthenticated mentioning %q", err, tc.msg)
			}
			if read > readAllowance {
				t.Fatalf("the service read %d bytes of a %d-byte message it refused, want at most %d", read, bigBody, readAllowance)
			}
		})
	}
}

// postRaw sends a POST of size bytes over a raw connection, writing the
// body while it waits for the answer, and returns the status and body.
func postRaw(t *testing.T, base, path, auth string, size int, chunked bool) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: registry\r\nContent-Type: application/json\r\n", path)
	if auth != "" {
		head += "Authorization: " + auth + "\r\n"
	}
	if chunked {
		head += "Transfer-Encoding: chunked\r\n\r\n"
	} else {
		head += fmt.Sprintf("Content-Length: %d\r\n\r\n", size)
	}
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		chunk := []byte(strings.Repeat("{", 32<<10))
		for sent := 0; sent < size && !stop.Load(); sent += len(chunk) {
			part := chunk[:min(len(chunk), size-sent)]
			if chunked {
				part = append(fmt.Appendf(nil, "%x\r\n", len(part)), append(part, "\r\n"...)...)
			}
			if _, err := conn.Write(part); err != nil {
				return
			}
		}
		if chunked && !stop.Load() {
			_, _ = io.WriteString(conn, "0\r\n\r\n")
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("POST %s: no response: %v", path, err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	stop.Store(true)
	conn.Close()
	wg.Wait()
	time.Sleep(50 * time.Millisecond) // the server's last reads land
	return resp.StatusCode, string(body)
}

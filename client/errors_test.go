package client

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func response(status int, contentType, requestID, body string) *http.Response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	if requestID != "" {
		h.Set("X-Request-Id", requestID)
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body))}
}

func TestNewAPIError(t *testing.T) {
	const js = "application/json"
	tests := []struct {
		name        string
		resp        *http.Response
		wantCode    int
		wantMessage string
		wantError   string
		is          error
	}{
		{
			name: "wrong state",
			resp: response(409, js, "5141ea20",
				`{"code":9,"message":"cannot approve io.github.acme/weather@1.0.0: its current state is approved (approve needs [pending_review])","details":[]}`),
			wantCode:    9,
			wantMessage: "cannot approve io.github.acme/weather@1.0.0: its current state is approved (approve needs [pending_review])",
			wantError:   "409 Conflict: cannot approve io.github.acme/weather@1.0.0: its current state is approved (approve needs [pending_review]) (request id 5141ea20)",
			is:          ErrConflict,
		},
		{
			name: "payload too large with details",
			resp: response(413, js, "r2",
				`{"code":8,"message":"serverJson is 300000 bytes, the limit is 262144","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"PAYLOAD_TOO_LARGE","domain":"mcpreg"}]}`),
			wantCode:    8,
			wantMessage: "serverJson is 300000 bytes, the limit is 262144",
			wantError:   "413 Request Entity Too Large: serverJson is 300000 bytes, the limit is 262144 (request id r2)",
			is:          ErrTooLarge,
		},
		{
			name:        "internal error names its request id once",
			resp:        response(500, js, "r3", `{"code":13,"message":"internal error (request id r3)"}`),
			wantCode:    13,
			wantMessage: "internal error (request id r3)",
			wantError:   "500 Internal Server Error: internal error (request id r3)",
		},
		{
			name:        "unauthenticated",
			resp:        response(401, js, "r4", `{"code":16,"message":"unauthenticated: malformed token (want mcpreg_...)"}`),
			wantCode:    16,
			wantMessage: "unauthenticated: malformed token (want mcpreg_...)",
			wantError:   "401 Unauthorized: unauthenticated: malformed token (want mcpreg_...) (request id r4)",
			is:          ErrUnauthenticated,
		},
		{
			name:        "plain text from another server",
			resp:        response(404, "text/plain; charset=utf-8", "", "404 page not found\n"),
			wantCode:    2,
			wantMessage: "404 page not found",
			wantError:   "404 Not Found: 404 page not found",
			is:          ErrNotFound,
		},
		{
			name:        "html from a proxy",
			resp:        response(502, "text/html", "", "<html><body><h1>502 Bad Gateway</h1></body></html>"),
			wantCode:    2,
			wantMessage: "Bad Gateway",
			wantError:   "502 Bad Gateway",
		},
		{
			name:        "oversized body",
			resp:        response(400, js, "r5", `{"code":3,"message":"`+strings.Repeat("x", 2*maxErrorBodyBytes)+`"}`),
			wantCode:    2,
			wantMessage: "Bad Request",
			wantError:   "400 Bad Request (request id r5)",
			is:          ErrInvalid,
		},
		{
			name:        "empty body",
			resp:        response(403, "", "", ""),
			wantCode:    2,
			wantMessage: "Forbidden",
			wantError:   "403 Forbidden",
			is:          ErrPermissionDenied,
		},
		{
			name:        "json without a message",
			resp:        response(429, js, "", `{"error":"slow down"}`),
			wantCode:    2,
			wantMessage: "Too Many Requests",
			wantError:   "429 Too Many Requests",
			is:          ErrRateLimited,
		},
		{
			name:        "control characters neutralised",
			resp:        response(400, js, "r\x1b6", "{\"code\":3,\"message\":\"tool \\u001b[2Jx: bad\"}"),
			wantCode:    3,
			wantMessage: "tool \uFFFD[2Jx: bad",
			wantError:   "400 Bad Request: tool \uFFFD[2Jx: bad (request id r\uFFFD6)",
			is:          ErrInvalid,
		},
		{
			name:        "unknown status",
			resp:        response(599, "", "", ""),
			wantCode:    2,
			wantMessage: "",
			wantError:   "599 HTTP status",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newAPIError(tt.resp)
			if e.HTTPStatus != tt.resp.StatusCode || e.Code != tt.wantCode || e.Message != tt.wantMessage {
				t.Errorf("got status %d code %d message %q; want code %d message %q",
					e.HTTPStatus, e.Code, e.Message, tt.wantCode, tt.wantMessage)
			}
			if e.Error() != tt.wantError {
				t.Errorf("Error() = %q\nwant      %q", e.Error(), tt.wantError)
			}
			if tt.is != nil && !errors.Is(e, tt.is) {
				t.Errorf("errors.Is(%v) = false", tt.is)
			}
		})
	}
}

// endless is a body that never ends and counts what was read from it.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += len(p)
	return len(p), nil
}

func TestNewAPIErrorReadsAtMostTheCap(t *testing.T) {
	body := &endless{}
	resp := &http.Response{StatusCode: 503, Header: http.Header{}, Body: io.NopCloser(body)}
	e := newAPIError(resp)
	if body.n > maxErrorBodyBytes+1 {
		t.Fatalf("read %d bytes of an error body, cap is %d", body.n, maxErrorBodyBytes)
	}
	if e.Message != "Service Unavailable" {
		t.Fatalf("message = %q", e.Message)
	}
}

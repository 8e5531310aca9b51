package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Sentinel errors. An *APIError matches the one for its HTTP status; errors
// the client raises before sending a request match ErrInvalid.
var (
	ErrInvalid          = errors.New("invalid request")            // 400, or rejected by the client
	ErrUnauthenticated  = errors.New("unauthenticated")            // 401
	ErrPermissionDenied = errors.New("permission denied")          // 403
	ErrNotFound         = errors.New("not found")                  // 404
	ErrConflict         = errors.New("conflict")                   // 409: exists, wrong state, four-eyes
	ErrTooLarge         = errors.New("request too large")          // 413
	ErrRateLimited      = errors.New("rate limited")               // 429
	ErrResponseTooLarge = errors.New("response exceeds the limit") // client-side cap on a success body
)

var statusSentinel = map[int]error{
	http.StatusBadRequest:            ErrInvalid,
	http.StatusUnauthorized:          ErrUnauthenticated,
	http.StatusForbidden:             ErrPermissionDenied,
	http.StatusNotFound:              ErrNotFound,
	http.StatusConflict:              ErrConflict,
	http.StatusRequestEntityTooLarge: ErrTooLarge,
	http.StatusTooManyRequests:       ErrRateLimited,
}

const (
	// maxErrorBodyBytes caps how much of an error body is read.
	maxErrorBodyBytes = 64 << 10
	// maxPlainMessage caps a message taken from a non-JSON error body.
	maxPlainMessage = 300
	// codeUnknown is gRPC's Unknown, used when the body carried no code.
	codeUnknown = 2
)

// APIError is a non-2xx answer from the service.
type APIError struct {
	// HTTPStatus is the response's status code.
	HTTPStatus int
	// Code is the gRPC status code from the body (google.golang.org/grpc/codes),
	// or 2 (Unknown) when the body carried none.
	Code int
	// Message is the service's message, or the status text when the body was
	// not a service error.
	Message string
	// RequestID is the id the service logged the call under (X-Request-Id).
	RequestID string
}

// Error reads like "409 Conflict: cannot approve ...: its current state is
// approved (request id abc)".
func (e *APIError) Error() string {
	var b strings.Builder
	text := http.StatusText(e.HTTPStatus)
	if text == "" {
		text = "HTTP status"
	}
	fmt.Fprintf(&b, "%d %s", e.HTTPStatus, text)
	if e.Message != "" && e.Message != text {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" && !strings.Contains(e.Message, e.RequestID) {
		fmt.Fprintf(&b, " (request id %s)", e.RequestID)
	}
	return b.String()
}

// Is reports whether target is the sentinel error for e's HTTP status.
func (e *APIError) Is(target error) bool {
	s, ok := statusSentinel[e.HTTPStatus]
	return ok && s == target
}

// newAPIError reads at most maxErrorBodyBytes of resp's body.
func newAPIError(resp *http.Response) *APIError {
	e := &APIError{HTTPStatus: resp.StatusCode, Code: codeUnknown,
		RequestID: clean(resp.Header.Get("X-Request-Id"), 128)}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes+1))
	if err != nil || len(data) > maxErrorBodyBytes {
		e.Message = http.StatusText(resp.StatusCode)
		return e
	}
	if loc := resp.Header.Get("Location"); resp.StatusCode/100 == 3 && loc != "" {
		e.Message = "redirected to " + clean(loc, maxPlainMessage) + "; use that address as the server URL"
		return e
	}
	if code, msg, ok := statusBody(data); ok {
		e.Code, e.Message = code, clean(msg, maxErrorBodyBytes)
		return e
	}
	e.Message = plainMessage(resp, data)
	return e
}

// statusBody decodes {"code": n, "message": "..."}; ok is false when data is
// not such an object.
func statusBody(data []byte) (code int, msg string, ok bool) {
	var body struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
	}
	if json.Unmarshal(data, &body) != nil || body.Message == nil {
		return 0, "", false
	}
	code = codeUnknown
	if body.Code != nil {
		code = *body.Code
	}
	return code, *body.Message, true
}

// plainMessage keeps a short text/plain body (a proxy's "404 page not
// found"); anything else becomes the status text.
func plainMessage(resp *http.Response, data []byte) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	msg := strings.TrimSpace(string(data))
	if mt != "text/plain" || msg == "" || len(msg) > maxPlainMessage || strings.ContainsRune(msg, '\n') {
		return http.StatusText(resp.StatusCode)
	}
	return clean(msg, maxPlainMessage)
}

// clean makes s safe to print on a terminal: valid UTF-8, no control
// characters other than newline and tab, at most limit bytes.
func clean(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return '\uFFFD'
		}
		return r
	}, s)
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

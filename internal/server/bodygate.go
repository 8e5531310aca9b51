package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/mcpreg/mcpreg/internal/registry"
)

// UnauthenticatedBodyBytes is the most of a request body read before the
// request is known to come from a valid token: enough for the web UI's
// sign-in and single sign-on forms (64 KiB, as their own caps), far less
// than --max-body-bytes.
const UnauthenticatedBodyBytes = 64 << 10

// gateBody reads a request body only as far as the sender's standing
// allows: up to maxBytes for a request with a valid bearer token, up to
// UnauthenticatedBodyBytes for anyone else. A larger body without a valid
// token is refused before it is read: 401 on the API, 413 on the web UI's
// forms. What passes is read in full here, so handlers see a bounded body.
func gateBody(maxBytes int64, svc authenticator, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		limit, authErr := maxBytes, error(nil)
		if limit > UnauthenticatedBodyBytes {
			if authErr = bearerValid(r, svc, log); authErr != nil {
				limit = UnauthenticatedBodyBytes
			}
		}
		if r.ContentLength > limit {
			refuseBody(w, r, r.ContentLength, limit, authErr)
			return
		}
		buf, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			refuseBody(w, r, -1, limit, authErr)
			return
		} else if err != nil {
			writeError(w, http.StatusBadRequest, status.New(codes.InvalidArgument, "reading request body: "+err.Error()))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(buf))
		next.ServeHTTP(w, r)
	})
}

// bearerValid authenticates the request's bearer token (nil: valid).
func bearerValid(r *http.Request, svc authenticator, log *slog.Logger) error {
	_, err := authenticate(r.Context(), svc, log, r.Header.Values("Authorization"))
	return err
}

// refuseBody answers a body over limit: without a valid token on the API,
// 401 with the reason the token failed; otherwise 413.
func refuseBody(w http.ResponseWriter, r *http.Request, size, limit int64, authErr error) {
	if authErr != nil && !webPath(r.URL.Path) {
		st := status.Convert(authErr)
		writeError(w, http.StatusUnauthorized, status.Newf(codes.Unauthenticated,
			"%s; request bodies over %d bytes need a valid token", st.Message(), UnauthenticatedBodyBytes))
		return
	}
	tooLarge(w, size, limit)
}

// webPath reports whether path belongs to the web UI (forms capped at 64 KiB).
func webPath(path string) bool {
	return !strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/v0")
}

// tapCaller carries the caller the tap authenticated to the interceptors.
type tapCaller struct{}

// authTap authenticates a gRPC call from its headers, before grpc-go reads
// and decodes the request message: a call without a valid token that may
// call the method is refused with nothing of its body read. The caller
// rides in the context to authInterceptor. grpc-go runs the tap on the
// connection's reader with its lock held, so a slow token lookup holds up
// only that one connection.
func authTap(svc authenticator, log *slog.Logger) tap.ServerInHandle {
	return func(ctx context.Context, info *tap.Info) (context.Context, error) {
		if publicMethods[info.FullMethodName] {
			return ctx, nil
		}
		c, err := authorize(ctx, svc, log, info.Header.Get("authorization"), info.FullMethodName)
		if err != nil {
			log.InfoContext(ctx, "rpc refused before its message was read", "method", info.FullMethodName,
				"code", status.Code(err).String(), "error", status.Convert(err).Message())
			return nil, err
		}
		return context.WithValue(ctx, tapCaller{}, c), nil
	}
}

// callerFromTap is the caller authTap authenticated, if it ran.
func callerFromTap(ctx context.Context) *registry.Caller {
	c, _ := ctx.Value(tapCaller{}).(*registry.Caller)
	return c
}

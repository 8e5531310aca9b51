package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/requestid"
)

// requestIDInterceptor gives every call a request id (the caller's, when
// well-formed) and returns it in the response header.
func requestIDInterceptor(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	given := ""
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(requestid.Header); len(v) > 0 {
			given = v[0]
		}
	}
	id := requestid.Accept(given)
	_ = grpc.SetHeader(ctx, metadata.Pairs(requestid.Header, id))
	return h(requestid.With(ctx, id), req)
}

// loggingInterceptor writes one structured line per call. It never logs
// request bodies or credentials.
func loggingInterceptor(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := h(ctx, req)
		code := status.Code(err)
		attrs := []any{"method", info.FullMethod, "code", code.String(), "request_id", requestid.From(ctx),
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000}
		if c := registry.CallerFrom(ctx); c != nil {
			attrs = append(attrs, "principal", c.Principal, "token", c.TokenID)
		}
		level := slog.LevelInfo
		if code == codes.Internal || code == codes.Unknown {
			level = slog.LevelError
		}
		if err != nil {
			attrs = append(attrs, "error", status.Convert(err).Message())
		}
		log.Log(ctx, level, "rpc", attrs...)
		return resp, err
	}
}

// authInterceptor authenticates the bearer token and checks the method's
// roles, unless authTap did so already. Unknown methods are refused (fail
// closed).
func authInterceptor(svc authenticator, log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if publicMethods[info.FullMethod] {
			return h(ctx, req)
		}
		if c := callerFromTap(ctx); c != nil {
			c.RequestID = requestid.From(ctx)
			return h(registry.WithCaller(ctx, c), req)
		}
		md, _ := metadata.FromIncomingContext(ctx)
		c, err := authorize(ctx, svc, log, md.Get("authorization"), info.FullMethod)
		if err != nil {
			return nil, err
		}
		return h(registry.WithCaller(ctx, c), req)
	}
}

// authorize authenticates the bearer token of an Authorization header and
// checks that its role may call method: the check every API call passes,
// through gRPC or the HTTP fast paths.
func authorize(ctx context.Context, svc authenticator, log *slog.Logger, authorization []string, method string) (*registry.Caller, error) {
	c, err := authenticate(ctx, svc, log, authorization)
	if err != nil {
		return nil, err
	}
	if !roleAllowed(method, c.Role) {
		return nil, status.Errorf(codes.PermissionDenied, "permission denied: role %s may not call %s", c.Role, shortMethod(method))
	}
	c.RequestID = requestid.From(ctx)
	return c, nil
}

// authenticator resolves bearer secrets to callers (the identity service).
type authenticator interface {
	Authenticate(ctx context.Context, secret string) (*registry.Caller, error)
}

// authenticate resolves the bearer token of an Authorization header.
func authenticate(ctx context.Context, svc authenticator, log *slog.Logger, authorization []string) (*registry.Caller, error) {
	if len(authorization) == 0 {
		return nil, status.Error(codes.Unauthenticated, "unauthenticated: missing bearer token (Authorization: Bearer mcpreg_...)")
	}
	scheme, secret, ok := strings.Cut(authorization[0], " ")
	if !ok || !strings.EqualFold(scheme, "bearer") || secret == "" {
		return nil, status.Error(codes.Unauthenticated, "unauthenticated: malformed Authorization header (want Bearer TOKEN)")
	}
	c, err := svc.Authenticate(ctx, strings.TrimSpace(secret))
	if err != nil {
		return nil, toStatus(ctx, log, err)
	}
	return c, nil
}

func shortMethod(full string) string {
	return full[strings.LastIndex(full, "/")+1:]
}

// recoveryInterceptor turns a handler panic into Internal with the request
// id; the stack goes to the log.
func recoveryInterceptor(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if r := recover(); r != nil {
				log.ErrorContext(ctx, "panic", "method", info.FullMethod, "request_id", requestid.From(ctx),
					"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = status.Errorf(codes.Internal, "internal error (request id %s)", requestid.From(ctx))
			}
		}()
		return h(ctx, req)
	}
}

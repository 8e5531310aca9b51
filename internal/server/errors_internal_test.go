package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/apierr"
	"github.com/mcpreg/mcpreg/internal/registry"
)

// TestErrorsReachGRPCAndREST: every registry sentinel gets its table
// entry's gRPC code, and the gateway, seeing only that gRPC status, answers
// the entry's HTTP status, with the sentinel's words trimmed.
func TestErrorsReachGRPCAndREST(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	for _, e := range apierr.Entries() {
		t.Run(e.Err.Error(), func(t *testing.T) {
			st := status.Convert(toStatus(ctx, log, fmt.Errorf("%w: the cause", e.Err)))
			if st.Code() != e.Code || st.Message() != "the cause" {
				t.Fatalf("gRPC %s %q, want %s %q", st.Code(), st.Message(), e.Code, "the cause")
			}
			if got := httpStatus(st); got != e.HTTP {
				t.Fatalf("REST %d, want %d", got, e.HTTP)
			}
		})
	}
	retry := status.Convert(toStatus(ctx, log, &registry.RetryError{Msg: "slow down", After: 1500 * time.Millisecond}))
	if after, ok := retryAfter(retry); retry.Code() != codes.ResourceExhausted || httpStatus(retry) != http.StatusTooManyRequests || !ok || after != "2" {
		t.Fatalf("a retry error: %s, REST %d, Retry-After %q", retry.Code(), httpStatus(retry), after)
	}
	internal := status.Convert(toStatus(ctx, log, fmt.Errorf("disk on fire")))
	if internal.Code() != codes.Internal || httpStatus(internal) != http.StatusInternalServerError {
		t.Fatalf("an unknown error: %s, REST %d", internal.Code(), httpStatus(internal))
	}
}

package server

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mcpreg/mcpreg/registry"
)

// ReasonPayloadTooLarge marks ResourceExhausted errors caused by size caps,
// which the REST gateway turns into 413 rather than 429.
const ReasonPayloadTooLarge = "PAYLOAD_TOO_LARGE"

var codeOf = []struct {
	err  error
	code codes.Code
}{
	{registry.ErrInvalid, codes.InvalidArgument},
	{registry.ErrNotFound, codes.NotFound},
	{registry.ErrAlreadyExists, codes.AlreadyExists},
	{registry.ErrConflict, codes.Aborted},
	{registry.ErrFailedPrecondition, codes.FailedPrecondition},
	{registry.ErrUnauthenticated, codes.Unauthenticated},
	{registry.ErrPermissionDenied, codes.PermissionDenied},
	{registry.ErrTooLarge, codes.ResourceExhausted},
	{registry.ErrRateLimited, codes.ResourceExhausted},
	{context.Canceled, codes.Canceled},
	{context.DeadlineExceeded, codes.DeadlineExceeded},
}

// toStatus is the one place domain errors become gRPC statuses. Anything
// unrecognised is internal: the client sees only the request id, the log gets
// the cause.
func toStatus(ctx context.Context, log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	rid := RequestIDFrom(ctx)
	for _, m := range codeOf {
		if errors.Is(err, m.err) {
			// The code already says what kind of error it is.
			msg := strings.TrimPrefix(err.Error(), m.err.Error()+": ")
			if after, ok := registry.RetryAfter(err); ok {
				_ = grpc.SetHeader(ctx, metadata.Pairs("retry-after", strconv.Itoa(int(after/time.Second))))
				return retryStatus(msg, rid, after)
			}
			return statusWith(m.code, msg, rid)
		}
	}
	log.ErrorContext(ctx, "internal error", "request_id", rid, "err", err)
	return statusWith(codes.Internal, "internal error (request id "+rid+")", rid)
}

// statusWith builds a status carrying the request id (google.rpc.RequestInfo)
// and, for size caps, the marker that makes REST answer 413.
// retryStatus is ResourceExhausted for a rate or capacity used up, with
// the wait (google.rpc.RetryInfo), which REST turns into 429 and
// Retry-After.
func retryStatus(msg, requestID string, after time.Duration) error {
	st, err := status.New(codes.ResourceExhausted, msg).WithDetails(&errdetails.RequestInfo{RequestId: requestID},
		&errdetails.RetryInfo{RetryDelay: durationpb.New(after)})
	if err != nil {
		return status.Error(codes.ResourceExhausted, msg)
	}
	return st.Err()
}

func statusWith(code codes.Code, msg, requestID string) error {
	details := []protoadapt.MessageV1{&errdetails.RequestInfo{RequestId: requestID}}
	if code == codes.ResourceExhausted {
		details = append(details, &errdetails.ErrorInfo{Reason: ReasonPayloadTooLarge, Domain: "mcpreg"})
	}
	st := status.New(code, msg)
	if withDetails, err := st.WithDetails(details...); err == nil {
		st = withDetails
	}
	return st.Err()
}

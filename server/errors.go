package server

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

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
			return statusWith(m.code, strings.TrimPrefix(err.Error(), m.err.Error()+": "), rid)
		}
	}
	log.ErrorContext(ctx, "internal error", "request_id", rid, "err", err)
	return statusWith(codes.Internal, "internal error (request id "+rid+")", rid)
}

// statusWith builds a status carrying the request id (google.rpc.RequestInfo)
// and, for size caps, the marker that makes REST answer 413.
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

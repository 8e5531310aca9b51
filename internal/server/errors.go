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

	"github.com/mcpreg/mcpreg/internal/apierr"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/requestid"
)

// contextCodes are the codes of a call cancelled or out of time, which are
// no registry errors (those are in package apierr).
var contextCodes = []struct {
	err  error
	code codes.Code
}{
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
	rid := requestid.From(ctx)
	if e, ok := apierr.Of(err); ok {
		// The code already says what kind of error it is.
		msg := e.Message(err)
		if after, ok := registry.RetryAfter(err); ok {
			_ = grpc.SetHeader(ctx, metadata.Pairs("retry-after", strconv.Itoa(int(after/time.Second))))
			return retryStatus(msg, rid, after)
		}
		return statusWith(e.Code, e.Reason, msg, rid)
	}
	for _, m := range contextCodes {
		if errors.Is(err, m.err) {
			return statusWith(m.code, "", strings.TrimPrefix(err.Error(), m.err.Error()+": "), rid)
		}
	}
	log.ErrorContext(ctx, "internal error", "request_id", rid, "err", err)
	return statusWith(codes.Internal, "", "internal error (request id "+rid+")", rid)
}

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

// statusWith builds a status carrying the request id (google.rpc.RequestInfo)
// and, when the error's table entry has one, the reason
// (google.rpc.ErrorInfo) that tells REST its HTTP status, like 413 for a
// size cap.
func statusWith(code codes.Code, reason, msg, requestID string) error {
	details := []protoadapt.MessageV1{&errdetails.RequestInfo{RequestId: requestID}}
	if reason != "" {
		details = append(details, &errdetails.ErrorInfo{Reason: reason, Domain: apierr.Domain})
	}
	st := status.New(code, msg)
	if withDetails, err := st.WithDetails(details...); err == nil {
		st = withDetails
	}
	return st.Err()
}

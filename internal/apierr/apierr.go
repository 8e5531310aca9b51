package apierr

import (
	"errors"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/mcpreg/mcpreg/internal/domain"
)

// Domain is the google.rpc.ErrorInfo domain of mcpreg's reasons.
const Domain = "mcpreg"

// ReasonPayloadTooLarge marks a size cap, carried as google.rpc.ErrorInfo:
// ResourceExhausted, HTTP 413 rather than the 429 of a rate.
const ReasonPayloadTooLarge = "PAYLOAD_TOO_LARGE"

// Entry is how errors wrapping one registry sentinel are answered.
type Entry struct {
	Err  error
	Code codes.Code
	HTTP int
	// Reason, when set, goes with the gRPC status as google.rpc.ErrorInfo
	// so the gateway tells this entry from others of the same Code.
	Reason string
}

// table is in matching order: an error wrapping two sentinels gets the
// first entry.
var table = []Entry{
	{domain.ErrInvalid, codes.InvalidArgument, http.StatusBadRequest, ""},
	{domain.ErrNotFound, codes.NotFound, http.StatusNotFound, ""},
	{domain.ErrAlreadyExists, codes.AlreadyExists, http.StatusConflict, ""},
	{domain.ErrConflict, codes.Aborted, http.StatusConflict, ""},
	{domain.ErrFailedPrecondition, codes.FailedPrecondition, http.StatusConflict, ""},
	{domain.ErrUnauthenticated, codes.Unauthenticated, http.StatusUnauthorized, ""},
	{domain.ErrPermissionDenied, codes.PermissionDenied, http.StatusForbidden, ""},
	{domain.ErrTooLarge, codes.ResourceExhausted, http.StatusRequestEntityTooLarge, ReasonPayloadTooLarge},
	{domain.ErrRateLimited, codes.ResourceExhausted, http.StatusTooManyRequests, ""},
	{domain.ErrThrottled, codes.ResourceExhausted, http.StatusTooManyRequests, ""},
}

// Entries is the table, in matching order.
func Entries() []Entry { return append([]Entry(nil), table...) }

// Of is the entry of the first sentinel err wraps.
func Of(err error) (Entry, bool) {
	for _, e := range table {
		if errors.Is(err, e.Err) {
			return e, true
		}
	}
	return Entry{}, false
}

// Message is what clients read of err under e: the error without the
// sentinel's own words in front, since the code already says them.
func (e Entry) Message(err error) string {
	return strings.TrimPrefix(err.Error(), e.Err.Error()+": ")
}

// HTTPStatus is the HTTP status of a gRPC status with code and ErrorInfo
// reason (or ""), as the gateway sees it: the table's, when an entry has
// that code and reason, or else that code and no reason.
func HTTPStatus(code codes.Code, reason string) (int, bool) {
	for _, r := range []string{reason, ""} {
		for _, e := range table {
			if e.Code == code && e.Reason == r {
				return e.HTTP, true
			}
		}
	}
	return 0, false
}

package server

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/mcpreg/mcpreg/internal/apierr"
	"github.com/mcpreg/mcpreg/internal/requestid"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// newGateway builds the REST gateway over a connection to our own gRPC
// server, so every interceptor applies to REST too.
func newGateway(ctx context.Context, conn *grpc.ClientConn) (http.Handler, error) {
	mux := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, newJSONMarshaler()),
		runtime.WithIncomingHeaderMatcher(incomingHeader),
		runtime.WithOutgoingHeaderMatcher(outgoingHeader),
		runtime.WithErrorHandler(errorHandler),
		runtime.WithRoutingErrorHandler(routingErrorHandler),
	)
	if err := mcpregv1.RegisterRegistryServiceHandler(ctx, mux, conn); err != nil {
		return nil, err
	}
	if err := mcpregv1.RegisterTokenServiceHandler(ctx, mux, conn); err != nil {
		return nil, err
	}
	if err := mcpregv1.RegisterDiscoveryServiceHandler(ctx, mux, conn); err != nil {
		return nil, err
	}
	return mux, nil
}

// jsonMarshaler is the gateway's JSON marshaller, runtime.JSONPb with
// one allocation per response: JSONPb marshals into a growing slice and
// copies that into a growing buffer, about six times the response's
// size in garbage (0.34 MB for a list page of 56 KB), which at fleet
// scale decided how often the collector ran. The bytes are the same.
type jsonMarshaler struct{ *runtime.JSONPb }

func newJSONMarshaler() jsonMarshaler {
	return jsonMarshaler{&runtime.JSONPb{
		MarshalOptions:   protojson.MarshalOptions{EmitUnpopulated: true},
		UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
	}}
}

// Marshal writes a message's JSON into a buffer sized from its wire size
// (JSON names every field and quotes its values: about 1.5 times as
// long); anything else goes to JSONPb.
func (m jsonMarshaler) Marshal(v any) ([]byte, error) {
	p, ok := v.(proto.Message)
	if !ok || m.Indent != "" {
		return m.JSONPb.Marshal(v)
	}
	return m.MarshalAppend(make([]byte, 0, proto.Size(p)*3/2+512), p)
}

func incomingHeader(key string) (string, bool) {
	switch k := strings.ToLower(key); k {
	case requestid.Header, HeaderIdempotencyKey, "authorization":
		return k, true
	}
	return runtime.DefaultHeaderMatcher(key)
}

func outgoingHeader(key string) (string, bool) {
	if strings.ToLower(key) == requestid.Header {
		return http.CanonicalHeaderKey(requestid.Header), true
	}
	return "", false
}

// httpStatus is the HTTP status of a gRPC status: the one package apierr
// gives registry errors of its code (and google.rpc.ErrorInfo reason, which
// tells a size cap's 413 from a rate's 429), else grpc-gateway's.
func httpStatus(st *status.Status) int {
	if code, ok := apierr.HTTPStatus(st.Code(), errorReason(st)); ok {
		return code
	}
	return runtime.HTTPStatusFromCode(st.Code())
}

// errorReason is the google.rpc.ErrorInfo reason of st, or "".
func errorReason(st *status.Status) string {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

// retryAfter is the Retry-After (whole seconds, at least 1) of a status
// carrying google.rpc.RetryInfo.
func retryAfter(st *status.Status) (string, bool) {
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			secs := max(1, int((ri.GetRetryDelay().AsDuration()+time.Second-1)/time.Second))
			return strconv.Itoa(secs), true
		}
	}
	return "", false
}

// badStringField matches protojson's refusal of a non-string value for a
// string field: "proto: (line 1:15): invalid value for string field
// serverJson: {" (protobuf-go varies the spaces on purpose).
var badStringField = regexp.MustCompile(`^proto:[\s\x{00a0}]*\(line (\d+:\d+)\):[\s\x{00a0}]*invalid value for string field (\w+):`)

// jsonTextFields are the request fields that carry a JSON document as text.
var jsonTextFields = map[string]bool{"serverJson": true, "tools": true, "initializeResult": true, "bundle": true}

// explainDecodeError rewrites the gateway's refusal of a request body
// whose text field holds JSON rather than a string into a message saying
// what to send.
func explainDecodeError(st *status.Status) *status.Status {
	m := badStringField.FindStringSubmatch(st.Message())
	if st.Code() != codes.InvalidArgument || m == nil {
		return st
	}
	field, at := m[2], m[1]
	if jsonTextFields[field] {
		return status.Newf(codes.InvalidArgument, "request body: %s is JSON text: send the document as a JSON string "+
			"(\"%s\": \"{\\\"name\\\": ...}\"), not as an object or array (at line %s)", field, field, at)
	}
	return status.Newf(codes.InvalidArgument, "request body: %s must be a JSON string (at line %s)", field, at)
}

func errorHandler(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	st := explainDecodeError(status.Convert(err))
	if st.Code() == codes.ResourceExhausted && strings.Contains(st.Message(), "received message larger than max") {
		st = status.New(codes.ResourceExhausted, st.Message())
		writeError(w, http.StatusRequestEntityTooLarge, st)
		return
	}
	if md, ok := runtime.ServerMetadataFromContext(ctx); ok {
		for _, v := range md.HeaderMD.Get(requestid.Header) {
			w.Header().Set(requestid.Header, v)
		}
	}
	if after, ok := retryAfter(st); ok {
		w.Header().Set("Retry-After", after)
	}
	writeError(w, httpStatus(st), st)
}

func routingErrorHandler(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, code int) {
	grpcCode, msg := codes.Unknown, http.StatusText(code)
	switch code {
	case http.StatusNotFound:
		grpcCode, msg = codes.NotFound, "no such endpoint: "+r.Method+" "+r.URL.Path
	case http.StatusMethodNotAllowed:
		grpcCode, msg = codes.Unimplemented, "method "+r.Method+" not allowed on "+r.URL.Path
	case http.StatusBadRequest:
		grpcCode = codes.InvalidArgument
	}
	writeError(w, code, status.New(grpcCode, msg))
}

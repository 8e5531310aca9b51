package server

import (
	"net/http"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

// writeError writes the JSON error body every REST failure uses:
// {"code": <grpc code>, "message": "...", "details": [...]}.
func writeError(w http.ResponseWriter, httpCode int, st *status.Status) {
	body, err := protojson.Marshal(st.Proto())
	if err != nil {
		body = []byte(`{"code":13,"message":"internal error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(httpCode)
	_, _ = w.Write(body)
}

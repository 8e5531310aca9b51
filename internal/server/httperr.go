package server

import (
	"encoding/json"
	"net/http"

	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

// writeError writes the JSON error body every REST failure uses:
// {"code": <grpc code>, "status": "NOT_FOUND", "message": "...",
// "details": [...]}: the google.rpc.Status with the code's name beside
// its number.
func writeError(w http.ResponseWriter, httpCode int, st *status.Status) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(httpCode)
	_, _ = w.Write(errorBody(st))
}

// errorBody is st as JSON with "status" added.
func errorBody(st *status.Status) []byte {
	raw, err := protojson.Marshal(st.Proto())
	var fields map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(raw, &fields)
	}
	if err != nil {
		return []byte(`{"code":13,"status":"INTERNAL","message":"internal error"}`)
	}
	name, _ := json.Marshal(rpccode.Code(st.Code()).String())
	fields["status"] = name
	if _, ok := fields["code"]; !ok { // protojson leaves out a zero code
		fields["code"] = json.RawMessage("0")
	}
	body, err := json.Marshal(fields)
	if err != nil {
		return []byte(`{"code":13,"status":"INTERNAL","message":"internal error"}`)
	}
	return body
}

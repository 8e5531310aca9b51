package officialapi

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// jsonMediaType is the only response media type the read paths document.
const jsonMediaType = "application/json"

var (
	// ErrUnknownOperation reports a method and path template the document
	// does not define.
	ErrUnknownOperation = errors.New("officialapi: no such operation in the document")
	// ErrUnknownResponse reports a status code the operation does not
	// document, with no range or "default" response to fall back to.
	ErrUnknownResponse = errors.New("officialapi: no such response in the document")
	// ErrNoSchema reports a documented response with no application/json
	// schema.
	ErrNoSchema = errors.New("officialapi: response has no application/json schema")
	// ErrInvalidBody reports a body that is not a single JSON value.
	ErrInvalidBody = errors.New("officialapi: body is not JSON")
)

// ValidateResponse checks body (JSON) against the schema the document gives
// for method and pathTemplate (for example "GET",
// "/v0.1/servers/{serverName}/versions/{version}") and status. A status the
// operation does not list falls back to its range ("4XX") and then to
// "default". A body that does not match yields a *MismatchError.
func (s *Spec) ValidateResponse(method, pathTemplate string, status int, body []byte) error {
	op := strings.ToUpper(method) + " " + pathTemplate
	responses, err := s.responses(method, pathTemplate)
	if err != nil {
		return err
	}
	code, err := responseKey(responses, status)
	if err != nil {
		return fmt.Errorf("%w: %s has no response for %d (documented: %s)", err, op, status, strings.Join(sortedKeys(responses), ", "))
	}
	if !hasJSONSchema(responses[code]) {
		return fmt.Errorf("%w: %s response %s", ErrNoSchema, op, code)
	}
	sch, err := s.compiled(pointer("paths", pathTemplate, strings.ToLower(method), "responses", code, "content", jsonMediaType, "schema"))
	if err != nil {
		return fmt.Errorf("%s response %s: %w", op, code, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %s response %s: %w", ErrInvalidBody, op, code, err)
	}
	if err := sch.Validate(inst); err != nil {
		return mismatch(op, code, err)
	}
	return nil
}

// responses returns the responses object of an operation.
func (s *Spec) responses(method, pathTemplate string) (map[string]any, error) {
	paths, _ := s.doc["paths"].(map[string]any)
	item, _ := paths[pathTemplate].(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	if op == nil || !slices.Contains(httpMethods, strings.ToLower(method)) {
		return nil, fmt.Errorf("%w: %s %s", ErrUnknownOperation, strings.ToUpper(method), pathTemplate)
	}
	responses, _ := op["responses"].(map[string]any)
	return responses, nil
}

// responseKey picks the documented response for status: exact code, then
// range ("4XX"), then "default".
func responseKey(responses map[string]any, status int) (string, error) {
	for _, k := range []string{strconv.Itoa(status), strconv.Itoa(status/100) + "XX", "default"} {
		if _, ok := responses[k]; ok {
			return k, nil
		}
	}
	return "", ErrUnknownResponse
}

// hasJSONSchema reports whether a response object has an application/json
// schema.
func hasJSONSchema(response any) bool {
	r, _ := response.(map[string]any)
	content, _ := r["content"].(map[string]any)
	media, _ := content[jsonMediaType].(map[string]any)
	_, ok := media["schema"]
	return ok
}

// pointer builds the URL fragment of a JSON pointer from raw tokens.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString("/" + url.PathEscape(escapeToken(t)))
	}
	return b.String()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

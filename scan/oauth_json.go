package scan

import (
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/mcpreg/mcpreg/pin"
)

// authDocLimits bound the strict reading of one metadata document.
var authDocLimits = pin.Limits{MaxBytes: maxAuthDocBytes, MaxDepth: DefaultMaxSchemaDepth}

// parsePRM reads a protected-resource metadata document (RFC 9728 §2):
// "resource" a string, "authorization_servers" absolute http or https
// URLs, "scopes_supported" strings. Other members are kept in Raw only.
func parsePRM(doc []byte) (*AuthMetadata, error) {
	obj, err := metadataObject(doc)
	if err != nil {
		return nil, err
	}
	auth := &AuthMetadata{Raw: doc, AuthorizationServers: []string{}}
	if auth.Resource, err = stringMember(obj, "resource", true); err != nil {
		return nil, err
	}
	if auth.ScopesSupported, err = stringsMember(obj, "scopes_supported"); err != nil {
		return nil, err
	}
	servers, err := stringsMember(obj, "authorization_servers")
	if err != nil {
		return nil, err
	}
	for i, s := range servers {
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return nil, &fetchError{reason: fmt.Sprintf("/authorization_servers/%d %q is not an absolute http or https URL (without user information)", i, s)}
		}
		auth.AuthorizationServers = append(auth.AuthorizationServers, s)
	}
	return auth, nil
}

// parseASMetadata reads the members of authorization server metadata (RFC
// 8414 §2) the scan keeps: "issuer" and "scopes_supported".
func parseASMetadata(doc []byte) (issuer string, scopes []string, err error) {
	obj, err := metadataObject(doc)
	if err != nil {
		return "", nil, err
	}
	if issuer, err = stringMember(obj, "issuer", false); err != nil {
		return "", nil, err
	}
	if scopes, err = stringsMember(obj, "scopes_supported"); err != nil {
		return "", nil, err
	}
	return issuer, scopes, nil
}

// metadataObject reads doc strictly (package pin's rules: no duplicate
// members, valid UTF-8...) as one JSON object, members matched by exact
// name.
func metadataObject(doc []byte) (map[string]json.RawMessage, error) {
	if err := pin.Validate(doc, authDocLimits); err != nil {
		return nil, &fetchError{reason: fmt.Sprintf("not strict JSON: %v", err)}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil || obj == nil {
		return nil, &fetchError{reason: "not a JSON object"}
	}
	return obj, nil
}

// stringMember returns the string member name of obj ("" when absent and
// not required).
func stringMember(obj map[string]json.RawMessage, name string, required bool) (string, error) {
	raw, ok := obj[name]
	if !ok && !required {
		return "", nil
	}
	var s string
	if !ok || !isJSONString(raw) || json.Unmarshal(raw, &s) != nil {
		return "", &fetchError{reason: fmt.Sprintf("/%s must be a string", name)}
	}
	return s, nil
}

// stringsMember returns the array of strings name of obj (nil when absent).
func stringsMember(obj map[string]json.RawMessage, name string) ([]string, error) {
	raw, ok := obj[name]
	if !ok {
		return nil, nil
	}
	var items []json.RawMessage
	bad := &fetchError{reason: fmt.Sprintf("/%s must be an array of strings", name)}
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, bad
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		var s string
		if !isJSONString(item) || json.Unmarshal(item, &s) != nil {
			return nil, bad
		}
		out = append(out, s)
	}
	return out, nil
}

func isJSONString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

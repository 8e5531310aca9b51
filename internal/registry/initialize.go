package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpreg/mcpreg/pin"
)

// InitializeFacts are what a snapshot keeps of an initialize result (or
// of a 2026-07-28 server/discover result).
type InitializeFacts struct {
	ProtocolVersion string
	// ServerInfo is the serverInfo object as received, or nil.
	ServerInfo []byte
	// Instructions is nil when the member is absent or null.
	Instructions *string
	// InstructionsSet reports whether the member was present at all.
	InstructionsSet bool
}

// ParseInitializeResult reads an initialize result strictly, or a
// server/discover result (2026-07-28: "supportedVersions" instead of
// "protocolVersion", serverInfo in "_meta"; its protocol version is the
// newest it supports). Empty input means no result was given.
func ParseInitializeResult(data []byte, lim pin.Limits) (*InitializeFacts, error) {
	f := &InitializeFacts{}
	if len(data) == 0 {
		return f, nil
	}
	if err := pin.Validate(data, lim); err != nil {
		return nil, pinError("initializeResult", err)
	}
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, invalidf("initializeResult: want a JSON object")
	}
	var raw struct {
		ProtocolVersion   json.RawMessage            `json:"protocolVersion"`
		SupportedVersions json.RawMessage            `json:"supportedVersions"`
		ServerInfo        json.RawMessage            `json:"serverInfo"`
		Instructions      json.RawMessage            `json:"instructions"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, invalidf("initializeResult: want a JSON object: %v", err)
	}
	info, where := raw.ServerInfo, "/serverInfo"
	if raw.ProtocolVersion == nil && raw.SupportedVersions != nil { // a server/discover result
		var versions []string
		if err := json.Unmarshal(raw.SupportedVersions, &versions); err != nil || len(versions) == 0 {
			return nil, invalidf("initializeResult /supportedVersions: want a non-empty array of strings")
		}
		f.ProtocolVersion = slices.Max(versions)
		info, where = raw.Meta[metaServerInfo], "/_meta/"+metaServerInfo
	} else if err := decodeOptionalString(raw.ProtocolVersion, &f.ProtocolVersion); err != nil {
		return nil, invalidf("initializeResult /protocolVersion: %v", err)
	}
	if len(info) > 0 && info[0] != '{' {
		return nil, invalidf("initializeResult %s: want an object", where)
	}
	f.ServerInfo = info
	return f, f.readInstructions(raw.Instructions)
}

// metaServerInfo is where a server/discover result carries serverInfo.
const metaServerInfo = "io.modelcontextprotocol/serverInfo"

func (f *InitializeFacts) readInstructions(raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	f.InstructionsSet = true
	if string(raw) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return invalidf("initializeResult /instructions: want a string or null")
	}
	f.Instructions = &s
	return nil
}

func decodeOptionalString(raw json.RawMessage, dst *string) error {
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("want a string")
	}
	return nil
}

package registry

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpreg/mcpreg/pin"
)

// InitializeFacts are what a snapshot keeps of an initialize result.
type InitializeFacts struct {
	ProtocolVersion string
	// ServerInfo is the serverInfo object as received, or nil.
	ServerInfo []byte
	// Instructions is nil when the member is absent or null.
	Instructions *string
	// InstructionsSet reports whether the member was present at all.
	InstructionsSet bool
}

// ParseInitializeResult reads an initialize result strictly. Empty input
// means no initialize result was given.
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
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    json.RawMessage `json:"instructions"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, invalidf("initializeResult: want a JSON object: %v", err)
	}
	if err := decodeOptionalString(raw.ProtocolVersion, &f.ProtocolVersion); err != nil {
		return nil, invalidf("initializeResult /protocolVersion: %v", err)
	}
	if len(raw.ServerInfo) > 0 && raw.ServerInfo[0] != '{' {
		return nil, invalidf("initializeResult /serverInfo: want an object")
	}
	f.ServerInfo = raw.ServerInfo
	return f, f.readInstructions(raw.Instructions)
}

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

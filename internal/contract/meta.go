package contract

import (
	"bytes"
	"encoding/json"

	"github.com/mcpreg/mcpreg/pin"
)

// MetaKey is the member of a server.json "_meta" object that may carry the
// contract, in its JSON form:
//
//	{"name": "io.github.acme/weather", ..., "_meta": {"io.mcpreg/contract": {"contractVersion": "mcpreg.contract/v1", ...}}}
//
// Because the official registry keeps only the publisher-provided member
// of "_meta", the contract is also looked for one level down, at
// _meta["io.modelcontextprotocol.registry/publisher-provided"]["io.mcpreg/contract"].
const MetaKey = "io.mcpreg/contract"

// publisherProvided is the official registry's member of "_meta" for
// publisher metadata.
const publisherProvided = "io.modelcontextprotocol.registry/publisher-provided"

// FromServerJSONMeta returns the contract carried in a server.json's
// "_meta" (see MetaKey), as raw JSON for Parse; found is false when there
// is none. The server.json must be strict JSON (pin.Validate with default
// limits); a contract member that is not an object, or a contract given at
// both places, is a *ValidationError pointing into the server.json.
func FromServerJSONMeta(serverJSON []byte) (raw []byte, found bool, err error) {
	if err := pin.Validate(serverJSON, pin.DefaultLimits()); err != nil {
		return nil, false, fromPinError(err)
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(serverJSON, &top) != nil {
		return nil, false, invalid(Violation{Message: "server.json must be a JSON object"})
	}
	meta, ok := object(top["_meta"])
	if !ok {
		if top["_meta"] == nil {
			return nil, false, nil
		}
		return nil, false, invalid(Violation{Pointer: "/_meta", Message: "_meta must be an object"})
	}
	direct, inPublisher := meta[MetaKey], []byte(nil)
	if pub, ok := object(meta[publisherProvided]); ok {
		inPublisher = pub[MetaKey]
	}
	directAt, publisherAt := pointer("_meta", MetaKey), pointer("_meta", publisherProvided, MetaKey)
	switch {
	case direct != nil && inPublisher != nil:
		return nil, false, invalid(Violation{Pointer: publisherAt, Message: "contract given twice (also at " + directAt + ")"})
	case direct != nil:
		return contractObject(direct, directAt)
	case inPublisher != nil:
		return contractObject(inPublisher, publisherAt)
	}
	return nil, false, nil
}

func contractObject(raw json.RawMessage, at string) ([]byte, bool, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("{")) {
		return nil, false, invalid(Violation{Pointer: at, Message: "the contract must be a JSON object"})
	}
	return bytes.Clone(raw), true, nil
}

// object decodes raw as a JSON object; ok is false when raw is absent or
// not an object.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if raw == nil {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

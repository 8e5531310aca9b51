package scan

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// parseInitialize reads the facts of a raw initialize result (2025-11-25)
// into rd: "protocolVersion" (a string), "serverInfo" (kept raw) and
// "instructions" (a string or null; absent is not the same as "").
func parseInitialize(result []byte, rd *Reading) error {
	ms, err := members(result)
	if err != nil {
		return fmt.Errorf("initialize result: %w", err)
	}
	pv, ok := ms["protocolVersion"]
	if !ok || pv.Kind() != '"' {
		return fmt.Errorf("%w: initialize result: \"protocolVersion\" must be a string at /protocolVersion", ErrInvalid)
	}
	rd.ProtocolVersion = unquoted(pv)
	if info, ok := ms["serverInfo"]; ok {
		rd.ServerInfo = bytes.Clone(info)
	}
	if err := rd.setInstructions(ms["instructions"]); err != nil {
		return err
	}
	if rd.caps, err = parseCapabilities(ms["capabilities"], methodInitialize); err != nil {
		return err
	}
	rd.Result = bytes.Clone(result)
	return nil
}

// parseDiscover reads the facts of a raw server/discover result
// (2026-07-28) into rd: the version the session negotiated, "serverInfo"
// from the result's _meta (kept raw), and "instructions" as in initialize.
func parseDiscover(result []byte, negotiated string, rd *Reading) error {
	ms, err := members(result)
	if err != nil {
		return fmt.Errorf("server/discover result: %w", err)
	}
	if sv, ok := ms["supportedVersions"]; !ok || sv.Kind() != '[' {
		return fmt.Errorf("%w: server/discover result: \"supportedVersions\" must be an array at /supportedVersions", ErrInvalid)
	}
	rd.ProtocolVersion = negotiated
	if info := metaServerInfo(ms); info != nil {
		rd.ServerInfo = info
	}
	if err := rd.setInstructions(ms["instructions"]); err != nil {
		return err
	}
	if rd.caps, err = parseCapabilities(ms["capabilities"], methodDiscover); err != nil {
		return err
	}
	rd.Result = bytes.Clone(result)
	return nil
}

// capabilities are the server capabilities that decide what a reading
// asks beyond the tools.
type capabilities struct {
	prompts   bool // prompts/list, prompts/get
	resources bool // resources/list, resources/templates/list
}

// parseCapabilities reads the raw "capabilities" of the result of method:
// absent or null advertises nothing; otherwise it must be an object, and a
// capability is advertised by an object member ("prompts":{}); null is not
// advertising it, any other value is invalid.
func parseCapabilities(v jsontext.Value, method string) (capabilities, error) {
	var c capabilities
	if v == nil || v.Kind() == 'n' {
		return c, nil
	}
	if v.Kind() != '{' {
		return c, fmt.Errorf("%w: %s result: \"capabilities\" must be an object, got %s at /capabilities", ErrInvalid, method, kindName(v.Kind()))
	}
	ms, err := members(v)
	if err != nil {
		return c, err
	}
	for _, f := range []struct {
		name string
		set  *bool
	}{{"prompts", &c.prompts}, {"resources", &c.resources}} {
		switch m, ok := ms[f.name]; {
		case !ok || m.Kind() == 'n':
		case m.Kind() == '{':
			*f.set = true
		default:
			return c, fmt.Errorf("%w: %s result: capability %q must be an object, got %s at /capabilities/%s",
				ErrInvalid, method, f.name, kindName(m.Kind()), f.name)
		}
	}
	return c, nil
}

// metaServerInfo is the raw serverInfo a 2026-07-28 result carries in its
// _meta, or nil.
func metaServerInfo(ms map[string]jsontext.Value) []byte {
	meta, ok := ms["_meta"]
	if !ok || meta.Kind() != '{' {
		return nil
	}
	mm, err := members(meta)
	if err != nil {
		return nil
	}
	if info, ok := mm[metaKeyServerInfo]; ok {
		return bytes.Clone(info)
	}
	return nil
}

// metaKeyServerInfo is where a 2026-07-28 result carries serverInfo.
const metaKeyServerInfo = "io.modelcontextprotocol/serverInfo"

// setInstructions records the raw "instructions" value v (nil: absent).
func (snap *Reading) setInstructions(v []byte) error {
	if v == nil {
		return nil
	}
	snap.InstructionsPresent = true
	switch v[0] {
	case 'n':
		return nil
	case '"':
		s := unquoted(v)
		snap.Instructions, snap.instructionsJSON = &s, bytes.Clone(v)
		return nil
	}
	return fmt.Errorf("%w: %s result: \"instructions\" must be a string or null at /instructions", ErrInvalid, snap.method())
}

// instructionsRaw returns the raw instructions string for a tools file, or
// nil when there are none (absent and null pin alike).
func (snap *Reading) instructionsRaw() []byte { return snap.instructionsJSON }

// method names the call whose result rd was read from.
func (snap *Reading) method() string {
	if snap.ProtocolVersion >= statelessVersion {
		return methodDiscover
	}
	return methodInitialize
}

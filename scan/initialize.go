package scan

import (
	"bytes"
	"fmt"
)

// parseInitialize reads the facts of a raw initialize result into snap:
// "protocolVersion" (a string), "serverInfo" (kept raw) and "instructions"
// (a string or null; absent is not the same as "").
func parseInitialize(result []byte, snap *Snapshot) error {
	ms, err := members(result)
	if err != nil {
		return fmt.Errorf("initialize result: %w", err)
	}
	pv, ok := ms["protocolVersion"]
	if !ok || pv.Kind() != '"' {
		return fmt.Errorf("%w: initialize result: \"protocolVersion\" must be a string at /protocolVersion", ErrInvalid)
	}
	snap.ProtocolVersion = unquoted(pv)
	if info, ok := ms["serverInfo"]; ok {
		snap.ServerInfo = bytes.Clone(info)
	}
	if err := snap.setInstructions(ms["instructions"]); err != nil {
		return err
	}
	snap.InitializeResult = bytes.Clone(result)
	return nil
}

// setInstructions records the raw "instructions" value v (nil: absent).
func (snap *Snapshot) setInstructions(v []byte) error {
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
	return fmt.Errorf("%w: initialize result: \"instructions\" must be a string or null at /instructions", ErrInvalid)
}

// instructionsRaw returns the raw instructions string for a tools file, or
// nil when there are none (absent and null pin alike).
func (snap *Snapshot) instructionsRaw() []byte { return snap.instructionsJSON }

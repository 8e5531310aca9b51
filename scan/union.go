package scan

import "github.com/mcpreg/mcpreg/pin"

// WithTools returns a copy of snap listing tools instead (each with its raw
// bytes as received), its ToolsFile and Pins computed again: the registry
// joins what one server lists to several identities this way. Everything
// else (instructions, prompts, readings, findings) is snap's.
func (snap *Snapshot) WithTools(tools []pin.Tool) (*Snapshot, error) {
	out := *snap
	l := pin.ToolsList{}
	if snap.Tools != nil {
		l = *snap.Tools
	}
	l.Tools = tools
	p, err := pin.Compute(&l)
	if err != nil {
		return nil, err
	}
	out.Tools, out.ToolsFile, out.Pins = &l, toolsFile(tools, snap.instructionsJSON), p
	return &out, nil
}

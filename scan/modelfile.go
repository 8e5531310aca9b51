package scan

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/mcpreg/mcpreg/pin"
)

// ModelFile returns what the server shows a model, from the primary
// reading, as one document built from the raw bytes received without
// re-encoding them: the tools file (ToolsFile: "tools" and, when the
// server sent a string, "instructions") with the members "prompts",
// "resources" and "resourceTemplates" added when the server listed any.
// Each prompt is as in Reading.Prompts (with its "messages" when it takes
// no required arguments). It is the tools file of mcpreg-pin-v2
// (docs/pin-spec.md, rule 9: an absent member is an empty array), the
// form the pinned tools file is to take once the registry pins prompts
// and resources; until then ToolsFile is what is pinned, and the v1 pins
// of both are the same. ModelFile returns nil for a snapshot without tools
// (a failed scan).
func (snap *Snapshot) ModelFile() []byte {
	if snap.Tools == nil {
		return nil
	}
	return modelDocument(snap.Tools.Tools, snap.instructionsJSON,
		rawMember{"prompts", snap.Prompts}, rawMember{"resources", snap.Resources},
		rawMember{"resourceTemplates", snap.ResourceTemplates})
}

// rawMember is an array member of a model document: raw items, left out
// when there are none.
type rawMember struct {
	name  string
	items []json.RawMessage
}

// toolsFile writes {"tools":[raw,...]} with the raw "instructions" value
// when there is one.
func toolsFile(tools []pin.Tool, instructions []byte) []byte {
	return modelDocument(tools, instructions)
}

// modelDocument writes {"tools":[raw,...]}, the raw "instructions" value
// when there is one, then each of extra that has items.
func modelDocument(tools []pin.Tool, instructions []byte, extra ...rawMember) []byte {
	var b bytes.Buffer
	b.WriteString(`{"tools":[`)
	for i, t := range tools {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t.Raw)
	}
	b.WriteByte(']')
	if instructions != nil {
		b.WriteString(`,"instructions":`)
		b.Write(instructions)
	}
	for _, m := range extra {
		if len(m.items) == 0 {
			continue
		}
		b.WriteString(`,"` + m.name + `":[`)
		for i, item := range m.items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(item)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

// ModelList returns what a model is shown as a tools list: the tools and
// instructions of Tools with the prompts, resources and resource
// templates read from their raw bytes, for pin.ComputeV2 and the drift
// comparison. The scan already bounded what it read, so the pin reader's
// limits are sized to the document.
func (snap *Snapshot) ModelList() (*pin.ToolsList, error) {
	if snap.Tools == nil {
		return nil, errors.New("scan: the snapshot holds no tools")
	}
	l := *snap.Tools
	if len(snap.Prompts)+len(snap.Resources)+len(snap.ResourceTemplates) == 0 {
		return &l, nil
	}
	doc := modelDocument(nil, nil, rawMember{"prompts", snap.Prompts}, rawMember{"resources", snap.Resources},
		rawMember{"resourceTemplates", snap.ResourceTemplates})
	n := max(len(snap.Prompts), len(snap.Resources), len(snap.ResourceTemplates))
	extra, err := pin.ParseToolsList(doc, pin.Limits{MaxBytes: len(doc), MaxDepth: pin.DefaultLimits().MaxDepth, MaxTools: n})
	if err != nil {
		return nil, err
	}
	l.Prompts, l.Resources, l.ResourceTemplates = extra.Prompts, extra.Resources, extra.ResourceTemplates
	return &l, nil
}

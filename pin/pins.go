package pin

// ToolPin is the tool_hash of one tool.
type ToolPin struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// Pins are the hashes of one tools list.
type Pins struct {
	ToolDefinitionHash string    `json:"toolDefinitionHash"`
	SchemaHash         string    `json:"schemaHash"`
	InstructionsHash   string    `json:"instructionsHash"`
	Tools              []ToolPin `json:"tools"` // sorted by name, byte order
}

// Compute returns the pins of l. It works from each tool's Raw bytes, which
// it reads strictly again, and fails if a Name differs from the name in Raw
// or two tools share a name.
func Compute(l *ToolsList) (Pins, error) {
	c, err := canonicalize(l)
	if err != nil {
		return Pins{}, err
	}
	return c.pins(), nil
}

// pins hashes the canonical texts.
func (c *canonicalList) pins() Pins {
	p := Pins{
		ToolDefinitionHash: digest(domainTools, c.definitions()),
		SchemaHash:         digest(domainSchema, c.schemas()),
		InstructionsHash:   digest(domainInstructions, c.instructions),
		Tools:              make([]ToolPin, 0, len(c.tools)),
	}
	for _, t := range c.tools {
		p.Tools = append(p.Tools, ToolPin{Name: t.name, Hash: digest(domainTool, t.projection)})
	}
	return p
}

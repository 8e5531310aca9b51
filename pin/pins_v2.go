package pin

// SpecVersionV2 names the pin specification that adds prompts and resources
// to the pins of [SpecVersion]; [ComputeV2] implements it.
const SpecVersionV2 = "mcpreg-pin-v2"

// Domain-separation prefixes of the hashes mcpreg-pin-v2 adds; its other
// hashes keep their mcpreg-pin-v1 prefixes.
const (
	domainPrompts   = SpecVersionV2 + "/prompts"
	domainResources = SpecVersionV2 + "/resources"
)

// PinsV2 are the mcpreg-pin-v2 hashes of one tools list: every
// mcpreg-pin-v1 hash, computed exactly as [Compute] does, plus the hashes
// of the prompts and of the resources and resource templates.
type PinsV2 struct {
	Pins
	PromptsHash   string `json:"promptsHash"`
	ResourcesHash string `json:"resourcesHash"`
}

// ComputeV2 returns the mcpreg-pin-v2 pins of l. Like [Compute] it works
// from the Raw bytes of every tool, prompt, resource and resource template,
// which it reads strictly again; it fails if a Name, URI or URITemplate
// differs from the one in Raw, if two elements of an array share one, or if
// a prompt with a required argument carries "messages". Absent and empty
// Prompts, Resources and ResourceTemplates pin alike.
func ComputeV2(l *ToolsList) (PinsV2, error) {
	c, err := canonicalizeV2(l)
	if err != nil {
		return PinsV2{}, err
	}
	return c.pins(), nil
}

// pins hashes the canonical texts.
func (c *canonicalListV2) pins() PinsV2 {
	return PinsV2{
		Pins:          c.canonicalList.pins(),
		PromptsHash:   digest(domainPrompts, c.promptsText()),
		ResourcesHash: digest(domainResources, c.resourcesText()),
	}
}

package pin

import "github.com/go-json-experiment/json/jsontext"

// SpecVersionV2 names the pin specification that adds prompts and resources
// to the pins of [SpecVersion]; [ComputeV2] implements it.
const SpecVersionV2 = "mcpreg-pin-v2"

// Domain-separation prefixes of the hashes mcpreg-pin-v2 adds; its other
// hashes keep their mcpreg-pin-v1 prefixes.
const (
	domainPrompts   = SpecVersionV2 + "/prompts"
	domainPrompt    = SpecVersionV2 + "/prompt"
	domainResources = SpecVersionV2 + "/resources"
)

// PinsV2 are the mcpreg-pin-v2 hashes of one tools list: every
// mcpreg-pin-v1 hash, computed exactly as [Compute] does, plus the hashes
// of the prompts and of the resources and resource templates, and each
// prompt's own hash (so that a gate can check one prompt at a time).
type PinsV2 struct {
	Pins
	PromptsHash   string      `json:"promptsHash"`
	ResourcesHash string      `json:"resourcesHash"`
	Prompts       []PromptPin `json:"prompts"` // sorted by name, byte order
}

// PromptPin is the prompt_hash of one prompt.
type PromptPin struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
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
	p := PinsV2{
		Pins:          c.canonicalList.pins(),
		PromptsHash:   digest(domainPrompts, c.promptsText()),
		ResourcesHash: digest(domainResources, c.resourcesText()),
		Prompts:       make([]PromptPin, len(c.prompts)),
	}
	for i, e := range c.prompts {
		p.Prompts[i] = PromptPin{Name: e.key, Hash: digest(domainPrompt, e.projection)}
	}
	return p
}

// ParsePrompt reads one prompt object (as a prompts/list result lists it,
// with the "messages" of its prompts/get result when it takes no required
// argument) under the strict rules of ParseToolsList, and returns it with
// its prompt_hash.
func ParsePrompt(raw []byte, lim Limits) (Prompt, string, error) {
	v := jsontext.Value(raw)
	if !v.IsValid() || v.Kind() != jsontext.KindBeginObject {
		return Prompt{}, "", invalidf("", 0, "a prompt must be one JSON object")
	}
	doc := make([]byte, 0, len(raw)+24)
	doc = append(append(append(doc, `{"tools":[],"prompts":[`...), raw...), "]}"...)
	l, err := ParseToolsList(doc, lim)
	if err != nil {
		return Prompt{}, "", err
	}
	p, err := ComputeV2(l)
	if err != nil {
		return Prompt{}, "", err
	}
	return l.Prompts[0], p.Prompts[0].Hash, nil
}

package pin

import (
	"github.com/go-json-experiment/json/jsontext"
)

// Prompt is one prompt of a prompts/list result, possibly with the
// "messages" of its prompts/get result merged in.
type Prompt struct {
	// Name is the prompt's "name" member.
	Name string
	// NeedsArguments reports that the prompt has a required argument: an
	// element of its "arguments" array that is an object whose "required"
	// member is the JSON literal true. prompts/get cannot be called without
	// arguments then, so the prompt carries no "messages". ParseToolsList
	// sets it; ComputeV2 reads Raw and does not use it.
	NeedsArguments bool
	// Raw is the prompt object byte for byte as received.
	Raw []byte
}

// Resource is one resource of a resources/list result.
type Resource struct {
	// URI is the resource's "uri" member.
	URI string
	// Raw is the resource object byte for byte as received.
	Raw []byte
}

// ResourceTemplate is one template of a resources/templates/list result.
type ResourceTemplate struct {
	// URITemplate is the template's "uriTemplate" member.
	URITemplate string
	// Raw is the template object byte for byte as received.
	Raw []byte
}

// prompts reads the "prompts" array.
func (p *parser) prompts() ([]Prompt, error) {
	els, err := p.list("/prompts", promptsList)
	if err != nil {
		return nil, err
	}
	ps := make([]Prompt, len(els))
	for i, e := range els {
		req, err := requiredArgument(e.members)
		if err != nil {
			return nil, err
		}
		ps[i] = Prompt{Name: e.key, NeedsArguments: req >= 0, Raw: e.raw}
	}
	return ps, nil
}

// resources reads the "resources" array.
func (p *parser) resources() ([]Resource, error) {
	els, err := p.list("/resources", resourcesList)
	if err != nil {
		return nil, err
	}
	rs := make([]Resource, len(els))
	for i, e := range els {
		rs[i] = Resource{URI: e.key, Raw: e.raw}
	}
	return rs, nil
}

// templates reads the "resourceTemplates" array.
func (p *parser) templates() ([]ResourceTemplate, error) {
	els, err := p.list("/resourceTemplates", templatesList)
	if err != nil {
		return nil, err
	}
	ts := make([]ResourceTemplate, len(els))
	for i, e := range els {
		ts[i] = ResourceTemplate{URITemplate: e.key, Raw: e.raw}
	}
	return ts, nil
}

// checkPrompt applies the rules on "messages": an array, and only on a
// prompt without a required argument.
func checkPrompt(ms []member, ptr string, off int64) error {
	msgs, ok := memberValue(ms, "messages")
	if !ok {
		return nil
	}
	at := pointerTo(ptr, "messages")
	if k := msgs.Kind(); k != jsontext.KindBeginArray {
		return invalidf(at, off, "prompt messages must be an array, got %s", kindName(k))
	}
	i, err := requiredArgument(ms)
	if err != nil {
		return rebase(err, ptr)
	}
	if i >= 0 {
		return invalidf(at, off, "a prompt with a required argument (argument %d) must not carry messages", i)
	}
	return nil
}

// requiredArgument returns the index of the first required argument among
// the members of a prompt, or -1 when there is none, also when "arguments"
// is absent or not an array.
func requiredArgument(ms []member) (int, error) {
	args, ok := memberValue(ms, "arguments")
	if !ok || args.Kind() != jsontext.KindBeginArray {
		return -1, nil
	}
	vs, err := arrayValues(args)
	if err != nil {
		return -1, err
	}
	for i, v := range vs {
		if v.Kind() != jsontext.KindBeginObject {
			continue
		}
		ams, err := objectMembers(v)
		if err != nil {
			return -1, err
		}
		if r, ok := memberValue(ams, "required"); ok && r.Kind() == jsontext.KindTrue {
			return i, nil
		}
	}
	return -1, nil
}

// arrayValues lists the elements of arr, a valid JSON array, in order.
func arrayValues(arr jsontext.Value) ([]jsontext.Value, error) {
	d := newDecoder(arr)
	if _, err := d.ReadToken(); err != nil {
		return nil, decodeError(err)
	}
	var vs []jsontext.Value
	for d.PeekKind() != jsontext.KindEndArray {
		v, err := d.ReadValue()
		if err != nil {
			return nil, decodeError(err)
		}
		vs = append(vs, v.Clone())
	}
	return vs, nil
}

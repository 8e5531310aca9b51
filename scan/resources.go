package scan

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// catalogs reads what the server shows a model beside its tools, as far
// as its capabilities advertise it: the prompts (with their messages), the
// resources and the resource templates. A server that does not advertise
// a capability is not asked.
func (s *session) catalogs(ctx context.Context, cs *mcp.ClientSession, rd *Reading) error {
	if rd.caps.prompts {
		if err := s.prompts(ctx, cs, rd); err != nil {
			return err
		}
	}
	if !rd.caps.resources {
		return nil
	}
	resources, err := s.walk(ctx, cs, resourcesCatalog)
	if err != nil {
		return err
	}
	templates, err := s.walk(ctx, cs, templatesCatalog)
	if err != nil {
		return err
	}
	rd.Resources, rd.ResourceTemplates = raws(resources), raws(templates)
	return nil
}

// raws returns the items as received.
func raws(items []item) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i, it := range items {
		out[i] = json.RawMessage(it.raw)
	}
	return out
}

// checkTemplate requires a listed resource template's "uriTemplate" to be
// an RFC 6570 URI template, read by the parser the Go SDK's servers use
// for their own templates: a client cannot expand any other, so it is
// invalid output, not a finding.
func checkTemplate(ms map[string]jsontext.Value, ptr string) error {
	t := unquoted(ms["uriTemplate"])
	if _, err := parseTemplate(t); err != nil {
		return fmt.Errorf("%w: uriTemplate %q is not an RFC 6570 URI template (%s) at %s/uriTemplate",
			ErrInvalid, abbreviate(t), abbreviate(err.Error()), ptr)
	}
	return nil
}

// parseTemplate parses t, turning a panic of the parser into an error:
// the template is the server's, the panic would be the scanner's.
func parseTemplate(t string) (_ *uritemplate.Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the parser failed: %v", r)
		}
	}()
	return uritemplate.New(t)
}

package officialapi

import (
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// assertedFormats are the formats checked rather than only annotated; see
// the package documentation for why date-time is one.
var assertedFormats = map[string]bool{"date-time": true}

// offlineLoader refuses every URL, so compiling never reads the network or
// the file system; draft meta-schemas are built into the jsonschema module.
type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("officialapi: refusing to load %s: only the official document is available", url)
}

// newCompiler returns a 2020-12 compiler holding doc as the resource url.
func newCompiler(url string, doc map[string]any) (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(offlineLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	for name := range documentFormats(doc, map[string]bool{}) {
		if !assertedFormats[name] {
			c.RegisterFormat(&jsonschema.Format{Name: name, Validate: annotationOnly})
		}
	}
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("adding document to the schema compiler: %w", err)
	}
	return c, nil
}

// annotationOnly accepts every value: the format is recorded, not checked.
func annotationOnly(any) error { return nil }

// documentFormats collects every string value of a "format" member in v.
// It may collect a few that are not schema keywords (an Input's "format"
// property schema is an object, not a string, so it is skipped).
func documentFormats(v any, found map[string]bool) map[string]bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if name, ok := e.(string); ok && k == "format" {
				found[name] = true
			}
			documentFormats(e, found)
		}
	case []any:
		for _, e := range v {
			documentFormats(e, found)
		}
	}
	return found
}

// compiled returns the schema at the JSON pointer fragment of the document,
// compiling it once.
func (s *Spec) compiled(fragment string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.schemas[fragment]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(s.url + "#" + fragment)
	if err != nil {
		return nil, errors.Join(ErrBadDocument, err)
	}
	s.schemas[fragment] = sch
	return sch, nil
}

package serverjson

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/registry/pkg/model"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaJSON is the official server.json JSON Schema; see schema/NOTICE.md.
//
//go:embed schema/server.schema.json
var schemaJSON []byte

// errNoRemote is what the compiler's loader answers for every URL: the
// schema must resolve from embedded resources alone.
var errNoRemote = errors.New("serverjson: loading schemas from outside the binary is disabled")

// loadAttempts counts calls to the refusing loader; tests assert it stays 0.
var loadAttempts atomic.Int64

// offlineLoader refuses every URL so compilation never touches the network
// or the file system. Draft meta-schemas come from the jsonschema module's
// own embedded copies and never reach a loader.
type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	loadAttempts.Add(1)
	return nil, fmt.Errorf("%w: %s", errNoRemote, url)
}

var compiled = sync.OnceValues(compileSchema)

// newCompiler returns a draft-07 compiler that can only use resources
// added to it.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.UseLoader(offlineLoader{})
	c.DefaultDraft(jsonschema.Draft7)
	return c
}

// compileSchema compiles the embedded schema, registered under
// model.CurrentSchemaURL (its own $id) and under any other $id it carries.
func compileSchema() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("serverjson: embedded schema: %w", err)
	}
	id, _ := doc.(map[string]any)["$id"].(string)
	c := newCompiler()
	urls := []string{model.CurrentSchemaURL}
	if id != "" && id != model.CurrentSchemaURL {
		urls = append(urls, id)
	}
	for _, url := range urls {
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("serverjson: register schema as %s: %w", url, err)
		}
	}
	sch, err := c.Compile(model.CurrentSchemaURL)
	if err != nil {
		return nil, fmt.Errorf("serverjson: compile embedded schema: %w", err)
	}
	return sch, nil
}

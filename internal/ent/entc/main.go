// Command entc regenerates the ent client from ./internal/ent/schema without touching
// go.mod: it uses the entc packages already required by the module. The
// templates in ./internal/ent/template override some of ent's (see there why).
//
// Run from the repository root (make generate-ent) or from ./internal/ent:
//
//	go run ./internal/ent/entc
package main

import (
	"log"
	"os"
	"path/filepath"

	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
)

func main() {
	schema := "./internal/ent/schema"
	if _, err := os.Stat(schema); err != nil {
		schema = "./schema" // run from ./internal/ent
	}
	cfg := &gen.Config{
		Features: []gen.Feature{
			gen.FeatureLock,
			gen.FeatureUpsert,
			gen.FeatureVersionedMigration,
			gen.FeatureExecQuery,
		},
	}
	tmpl := filepath.Join(filepath.Dir(schema), "template")
	if err := entc.Generate(schema, cfg, entc.TemplateDir(tmpl)); err != nil {
		log.Fatalf("entc: generate from %s: %v", schema, err)
	}
}

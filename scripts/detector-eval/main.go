// Command detector-eval prints how the poisoning findings do on the
// corpus (testdata/poisoning): recall at medium and high and the part
// caught by the right kind, per family and language, and the false
// positives per kind of benign tool, on the development and held-out
// splits. `make detector-eval` runs it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/mcpreg/mcpreg/internal/detectoreval"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/textclf"
)

func main() {
	dir := flag.String("dir", "testdata/poisoning", "corpus folder")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.Parse()
	if err := run(*dir, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "detector-eval:", err)
		os.Exit(1)
	}
}

func run(dir string, asJSON bool) error {
	c, err := detectoreval.Load(dir)
	if err != nil {
		return err
	}
	r, err := c.Evaluate(diffreview.PoisoningModel)
	if err != nil {
		return err
	}
	cv, err := c.CrossValidate(diffreview.ClassifierFeatures, diffreview.ClassifierClassNames(), detectoreval.ModelOptions,
		func(m *textclf.Model) detectoreval.Detector { return diffreview.PoisoningModelWith(m) })
	if err != nil {
		return err
	}
	r.CrossValidated = &cv
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return detectoreval.Print(os.Stdout, r)
}

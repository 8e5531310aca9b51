// Command detector-model trains the poisoning word model on the
// development split of testdata/poisoning and writes it where the
// detectors embed it (internal/diffreview/textmodel.json). Training is
// deterministic: running it again on the same corpus writes the same
// bytes. `make detector-model` runs it.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mcpreg/mcpreg/internal/detectoreval"
	"github.com/mcpreg/mcpreg/internal/diffreview"
	"github.com/mcpreg/mcpreg/internal/textclf"
)

func main() {
	dir := flag.String("dir", "testdata/poisoning", "corpus folder")
	out := flag.String("out", "internal/diffreview/textmodel.json", "model file to write")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "detector-model:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	c, err := detectoreval.Load(dir)
	if err != nil {
		return err
	}
	m, err := c.Train(diffreview.ClassifierFeatures, diffreview.ClassifierClassNames(), detectoreval.ModelOptions)
	if err != nil {
		return err
	}
	data, err := textclf.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d features, threshold %.4f, out-of-fold recall %.3f at false-positive rate %.3f\n",
		out, len(m.Weights), m.Threshold, m.CrossValidation.Recall, m.CrossValidation.FPR)
	return nil
}

// Command corpussplit writes testdata/poisoning/split.json: the frozen
// split of the poisoning corpus. New cases are added by the split rule; a
// held-out case whose line changed is refused unless named with -accept
// (a label fix, to be listed in the closing note of the issue).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpreg/mcpreg/internal/detectoreval"
)

func main() {
	dir := flag.String("dir", "testdata/poisoning", "corpus folder")
	accept := flag.String("accept", "", "comma-separated held-out ids whose change (a label fix) is accepted")
	flag.Parse()
	if err := run(*dir, *accept); err != nil {
		fmt.Fprintln(os.Stderr, "corpussplit:", err)
		os.Exit(1)
	}
}

func run(dir, accept string) error {
	c, err := detectoreval.Load(dir)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "split.json")
	prev, err := detectoreval.ReadSplit(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var ids []string
	if accept != "" {
		ids = strings.Split(accept, ",")
	}
	s, err := c.Freeze(prev, ids)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
		return err
	}
	dev, held := c.Sizes()
	fmt.Printf("%s: %d development, %d held out\n", path, dev, held)
	return nil
}

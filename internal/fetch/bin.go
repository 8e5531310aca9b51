package fetch

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// binOf reads the executable a package declares in package.json "bin": the
// only one, or the one named like the package.
func binOf(pkgDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("package.json: %w", err)
	}
	var pj struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		return "", fmt.Errorf("package.json: %w", err)
	}
	var rel string
	var one string
	var many map[string]string
	switch {
	case len(pj.Bin) == 0:
		return "", errors.New(`package.json has no "bin": nothing to launch`)
	case json.Unmarshal(pj.Bin, &one) == nil:
		rel = one
	case json.Unmarshal(pj.Bin, &many) == nil:
		short := pj.Name[strings.LastIndex(pj.Name, "/")+1:]
		for name, p := range many {
			if len(many) == 1 || name == short {
				rel = p
			}
		}
		if rel == "" {
			return "", fmt.Errorf(`package.json "bin" has %d entries and none is named %q`, len(many), short)
		}
	default:
		return "", errors.New(`package.json "bin" is neither a path nor an object of paths`)
	}
	clean := path.Clean("/" + filepath.ToSlash(rel))[1:]
	if clean == "" || clean != strings.TrimPrefix(path.Clean(filepath.ToSlash(rel)), "./") {
		return "", fmt.Errorf(`package.json "bin" %q leaves the package`, rel)
	}
	bin := filepath.Join(pkgDir, filepath.FromSlash(clean))
	if info, err := os.Lstat(bin); err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf(`package.json "bin" %q is not a file in the package`, rel)
	}
	return bin, nil
}

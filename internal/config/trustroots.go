package config

import (
	"fmt"
	"strings"
)

// ParseTrustedRoots reads --trusted-root NAME=PATH values.
func ParseTrustedRoots(values []string) (map[string]string, error) {
	out := make(map[string]string, len(values))
	for _, v := range values {
		name, path, ok := strings.Cut(v, "=")
		name, path = strings.TrimSpace(name), strings.TrimSpace(path)
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("--trusted-root %q: want NAME=PATH to a sigstore trusted_root.json", v)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--trusted-root: %q given twice", name)
		}
		out[name] = path
	}
	return out, nil
}

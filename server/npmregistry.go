package server

import (
	"fmt"
	"net/url"

	"github.com/mcpreg/mcpreg/fetch"
	"github.com/mcpreg/mcpreg/registry"
)

// NPMIntegrityFrom is where the registry reads npm integrity values: the
// configured npm registry (--npm-registry), else the public one.
func NPMIntegrityFrom(cfg Config) registry.Option {
	return registry.WithNPMIntegrity(fetch.Packuments{Registry: cfg.NPMRegistry})
}

func checkNPMRegistry(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("--npm-registry %q: want an http(s) URL such as https://registry.npmjs.org/", s)
	}
	return nil
}

package wiring

import (
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/registry"
)

// npmIntegrityFrom is where the registry reads npm integrity values: the
// npm registry scans fetch from (--scan-npm-registry), so the digest an
// attestation is checked against and the tarball the scanner runs come
// from one place.
func npmIntegrityFrom(cfg config.Config) registry.Option {
	return registry.WithNPMIntegrity(fetch.Packuments{Registry: cfg.ScanNPMRegistry})
}

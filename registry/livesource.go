package registry

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/mcpreg/mcpreg/diffreview"
	"github.com/mcpreg/mcpreg/scan"
	"github.com/mcpreg/mcpreg/serverjson"
)

// LaunchTemplate is an admin-approved way to start a package of one
// registry type: an argv whose elements may hold {identifier} and
// {version}. A submission never supplies a command.
type LaunchTemplate struct {
	RegistryType string
	Argv         []string
}

// ParseLaunchTemplate reads "TYPE=CMD ARG..." (arguments split on spaces),
// e.g. "npm=npx -y {identifier}@{version}".
func ParseLaunchTemplate(s string) (LaunchTemplate, error) {
	typ, cmd, ok := strings.Cut(s, "=")
	argv := strings.Fields(cmd)
	if !ok || strings.TrimSpace(typ) == "" || len(argv) == 0 {
		return LaunchTemplate{}, invalidf("launch template %q: want TYPE=COMMAND ARGS..., e.g. npm=npx -y {identifier}@{version}", s)
	}
	return LaunchTemplate{RegistryType: strings.TrimSpace(typ), Argv: argv}, nil
}

// Scanning configures live reads.
type Scanning struct {
	Reader    *scan.Reader
	Templates []LaunchTemplate
	// Credential, when set, runs stdio servers as that unprivileged user.
	Credential *syscall.Credential
	// DriftPolicy rates drift classes; nil means diffreview.DefaultPolicy.
	DriftPolicy *diffreview.Policy
}

// driftPolicy is the configured drift policy, or the default one.
func (s *Service) driftPolicy() diffreview.Policy {
	if s.scanning != nil && s.scanning.DriftPolicy != nil {
		return *s.scanning.DriftPolicy
	}
	return diffreview.DefaultPolicy()
}

// WithScanning enables live reads (submit --live, scans).
func WithScanning(sc Scanning) Option { return func(s *Service) { s.scanning = &sc } }

// liveTarget resolves where a version's server is read: its first
// streamable-http remote, else its first package through the launch
// template of the package's registry type.
func (s *Service) liveTarget(doc *serverjson.Document) (scan.Target, string, error) {
	if s.scanning == nil {
		return nil, "", fmt.Errorf("%w: live reading is not enabled on this registry", ErrFailedPrecondition)
	}
	for _, r := range doc.Server.Remotes {
		if r.Type == "streamable-http" {
			return scan.HTTPTarget{URL: r.URL}, "remote", nil
		}
	}
	for _, p := range doc.Server.Packages {
		tmpl, ok := s.template(p.RegistryType)
		if !ok {
			return nil, "", fmt.Errorf("%w: no admin-approved launch template for registry type %q (mcpregd serve --scan-launch-template)", ErrFailedPrecondition, p.RegistryType)
		}
		argv := expand(tmpl.Argv, p.Identifier, p.Version)
		return scan.StdioTarget{Command: argv[0], Args: argv[1:], Credential: s.scanning.Credential}, "package", nil
	}
	return nil, "", invalidf("server.json has no streamable-http remote and no package to read live")
}

func (s *Service) template(registryType string) (LaunchTemplate, bool) {
	for _, t := range s.scanning.Templates {
		if t.RegistryType == registryType {
			return t, true
		}
	}
	return LaunchTemplate{}, false
}

func expand(argv []string, identifier, version string) []string {
	r := strings.NewReplacer("{identifier}", identifier, "{version}", version)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

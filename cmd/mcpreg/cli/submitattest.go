package cli

import (
	"fmt"
	"strconv"
	"strings"

	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// attestationArg is one --attestation PACKAGE=BUNDLEFILE.
type attestationArg struct {
	index      int32
	identifier string
	bundle     string
}

// parseAttestationArg splits PACKAGE=BUNDLEFILE at the first "=": PACKAGE
// is a 0-based index when it is all digits, else a package identifier.
func parseAttestationArg(arg string) (attestationArg, error) {
	pkg, file, ok := strings.Cut(arg, "=")
	if !ok || pkg == "" || file == "" {
		return attestationArg{}, fmt.Errorf("--attestation %q: want PACKAGE=BUNDLEFILE, PACKAGE an index or an identifier", arg)
	}
	if strings.Trim(pkg, "0123456789") != "" {
		return attestationArg{identifier: pkg, bundle: file}, nil
	}
	n, err := strconv.ParseInt(pkg, 10, 32)
	if err != nil {
		return attestationArg{}, fmt.Errorf("--attestation %q: package index %s: out of range", arg, pkg)
	}
	return attestationArg{index: int32(n), bundle: file}, nil
}

// bundlePaths are the bundle files named by --attestation arguments; bad
// arguments are left to submitAttestations.
func bundlePaths(args []string) []string {
	var out []string
	for _, a := range args {
		if p, err := parseAttestationArg(a); err == nil {
			out = append(out, p.bundle)
		}
	}
	return out
}

// submitAttestations reads the bundles of --attestation arguments.
func (g *globals) submitAttestations(args []string) ([]*mcpregv1.AttestationInput, error) {
	out := make([]*mcpregv1.AttestationInput, 0, len(args))
	for _, arg := range args {
		a, err := parseAttestationArg(arg)
		if err != nil {
			return nil, err
		}
		bundle, err := g.readText("--attestation", a.bundle)
		if err != nil {
			return nil, err
		}
		out = append(out, &mcpregv1.AttestationInput{PackageIndex: a.index, PackageIdentifier: a.identifier, Bundle: bundle})
	}
	return out, nil
}

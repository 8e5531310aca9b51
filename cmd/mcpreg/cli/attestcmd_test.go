package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServiceAttestValidation: policy set, attest add, attest reverify and
// submit --attestation refuse bad arguments before any network call.
func TestServiceAttestValidation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unknown := write("unknown.json", `{"required": true, "identitys": []}`)
	wrongType := write("type.json", `{"required": "yes"}`)
	bundle := write("bundle.json", `{}`)
	env := map[string]string{EnvServer: unreachable, EnvToken: "mcpreg_x"}
	const name = "io.github.acme/weather"
	submit := []string{"submit", "--server-json", "testdata/server.json", "--tools", toolsFixture}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"policy set without reason", []string{"policy", "set", name, "--require-contract"}, "--reason is required"},
		{"policy set blank reason", []string{"policy", "set", name, "--require-contract", "--reason", " "}, "--reason is required"},
		{"policy set nothing", []string{"policy", "set", name, "--reason", "r"}, errNothingToSet.Error()},
		{"policy confirm without digest", []string{"policy", "confirm", name, "--reason", "r"}, "--digest is required"},
		{"policy confirm without reason", []string{"policy", "confirm", name, "--digest", "sha256:00"}, "--reason is required"},
		{"policy set no name", []string{"policy", "set", "--require-contract", "--reason", "r"}, "accepts 1 arg(s)"},
		{"policy set bad bool", []string{"policy", "set", name, "--require-contract=maybe", "--reason", "r"}, "invalid argument"},
		{"policy file unknown field", []string{"policy", "set", name, "--attestation-policy", unknown, "--reason", "r"},
			`unknown field "identitys"`},
		{"policy file wrong type", []string{"policy", "set", name, "--attestation-policy", wrongType, "--reason", "r"},
			"--attestation-policy " + wrongType},
		{"policy file missing", []string{"policy", "set", name, "--attestation-policy", filepath.Join(dir, "nope.json"), "--reason", "r"},
			"no such file"},
		{"policy file empty name", []string{"policy", "set", name, "--attestation-policy", "", "--reason", "r"}, "want a JSON file"},
		{"add no bundle", []string{"attest", "add", name, "1.0.0", "--package", "0"}, `required flag(s) "bundle" not set`},
		{"add no package", []string{"attest", "add", name, "1.0.0", "--bundle", bundle}, "package identifier"},
		{"add both packages", []string{"attest", "add", name, "1.0.0", "--bundle", bundle, "--package", "0", "--identifier", "x"},
			"were all set"},
		{"add negative package", []string{"attest", "add", name, "1.0.0", "--bundle", bundle, "--package", "-1"}, "want a 0-based index"},
		{"add no version", []string{"attest", "add", name, "--bundle", bundle, "--package", "0"}, "accepts 2 arg(s)"},
		{"add bundle missing", []string{"attest", "add", name, "1.0.0", "--bundle", filepath.Join(dir, "nope"), "--package", "0"},
			"--bundle: open"},
		{"reverify args", []string{"attest", "reverify", "now"}, "unknown command"},
		{"submit attestation no =", append(submit, "--attestation", bundle), "want PACKAGE=BUNDLEFILE"},
		{"submit attestation no package", append(submit, "--attestation", "="+bundle), "want PACKAGE=BUNDLEFILE"},
		{"submit attestation no file", append(submit, "--attestation", "0="), "want PACKAGE=BUNDLEFILE"},
		{"submit attestation huge index", append(submit, "--attestation", "99999999999="+bundle), "out of range"},
		{"submit attestation missing file", append(submit, "--attestation", "0="+filepath.Join(dir, "nope")), "--attestation: open"},
		{"submit attestation stdin twice", []string{"submit", "--server-json", "-", "--tools", toolsFixture, "--attestation", "0=-"},
			errStdinTwice.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, env, "{}", tt.args...)
			if r.err == nil || !strings.Contains(r.err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", r.err, tt.wantErr)
			}
		})
	}
}

func TestParseAttestationArg(t *testing.T) {
	tests := []struct {
		arg  string
		want attestationArg
	}{
		{"0=b.json", attestationArg{index: 0, bundle: "b.json"}},
		{"12=dir/a=b.json", attestationArg{index: 12, bundle: "dir/a=b.json"}},
		{"@acme/weather-mcp=b.json", attestationArg{identifier: "@acme/weather-mcp", bundle: "b.json"}},
		{"ghcr.io/acme/weather:1.0=-", attestationArg{identifier: "ghcr.io/acme/weather:1.0", bundle: "-"}},
		{"1a=b.json", attestationArg{identifier: "1a", bundle: "b.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			got, err := parseAttestationArg(tt.arg)
			if err != nil || got != tt.want {
				t.Fatalf("parseAttestationArg(%q) = %+v, %v; want %+v", tt.arg, got, err, tt.want)
			}
		})
	}
}

func TestSubmitRequestCarriesAttestations(t *testing.T) {
	g := &globals{io: Streams{In: strings.NewReader(`{"from":"stdin"}`)}}
	req, err := g.submitRequest(submitFiles{serverJSON: "testdata/server.json", tools: toolsFixture,
		attestations: []string{"1=-", "@acme/x=testdata/tools.json"}})
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := os.ReadFile(toolsFixture)
	a := req.GetAttestations()
	if len(a) != 2 || a[0].GetPackageIndex() != 1 || a[0].GetBundle() != `{"from":"stdin"}` ||
		a[1].GetPackageIdentifier() != "@acme/x" || a[1].GetBundle() != string(tools) {
		t.Fatalf("attestations = %v", a)
	}
}

func TestServiceAttestCommandsNeedToken(t *testing.T) {
	for _, args := range [][]string{
		{"attest", "reverify"},
		{"attest", "add", "io.github.acme/weather", "1.0.0", "--bundle", "testdata/tools.json", "--package", "0"},
		{"policy", "set", "io.github.acme/weather", "--require-contract", "--reason", "r"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := execute(t, map[string]string{EnvServer: unreachable}, "", args...)
			if !errors.Is(r.err, errNoToken) {
				t.Fatalf("error = %v, want errNoToken", r.err)
			}
		})
	}
}

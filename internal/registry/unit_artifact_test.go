package registry_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/attest"
	"github.com/mcpreg/mcpreg/internal/ent/finding"
	"github.com/mcpreg/mcpreg/internal/fetch"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/scan"
)

// npmServerJSON is name@weatherVersion published as the npm package
// @acme/weather@1.0.0 whose tarball is artifact (server.json declares its
// sha256).
func npmServerJSON(name string, artifact []byte) []byte {
	sum := sha256.Sum256(artifact)
	return fmt.Appendf(nil, `{"$schema":%q,"name":%q,"description":"d","version":%q,
 "packages":[{"registryType":"npm","identifier":"@acme/weather","version":"1.0.0","fileSha256":%q,"transport":{"type":"stdio"}}]}`,
		schemaURL, name, weatherVersion, hex.EncodeToString(sum[:]))
}

// TestUnitArtifactQuarantine: an npm version is scanned from the package
// the fetcher prepared, checked against the digest server.json declares.
// A fetch that fails leaves the version alone; a published package that is
// not the declared artifact quarantines it (kind artifact), with a finding
// that then blocks release, and is never launched.
func TestUnitArtifactQuarantine(t *testing.T) {
	ctx := context.Background()
	tarball := []byte("weather-1.0.0.tgz")
	declared, err := attest.DigestOf(tarball, attest.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	prepared, err := attest.DigestOf(tarball, attest.SHA512)
	if err != nil {
		t.Fatal(err)
	}
	env, live, npm := newUnitEnv(t), &fakeReader{}, &fakeNPM{}
	svc := env.service(t, registry.Scanning{Reader: live, NPM: npm,
		Templates: []registry.LaunchTemplate{{RegistryType: "npm", Argv: []string{"node", "{package_bin}", "--stdio"}}}})
	approve(t, svc, registry.Submission{ServerJSON: npmServerJSON(weather, tarball)}, weather)
	live.serve(liveSnapshot(t, weatherTools, weatherInfo))

	pkg := &fetch.Package{Dir: "/var/cache/mcpreg/npm/v2/abc", Bin: "/var/cache/mcpreg/npm/v2/abc/dist/index.js", Digest: prepared}
	npm.answer(pkg, nil)
	res := scanNow(t, svc, weather)
	if sc := res.GetScan(); sc.GetOutcome() != string(states.OutcomeMatch) || sc.GetArtifactDigest() != prepared.String() || sc.GetDigestSource() != registry.DigestFromFileSHA256 {
		t.Fatalf("scan of the prepared package: outcome %q artifact %q from %q", sc.GetOutcome(), sc.GetArtifactDigest(), sc.GetDigestSource())
	}
	if calls := npm.fetched(); len(calls) != 1 || calls[0] != (fetchCall{"@acme/weather", "1.0.0", declared}) {
		t.Fatalf("fetches %v, want @acme/weather 1.0.0 checked against %s", calls, declared)
	}
	st, ok := live.reads()[0].(scan.StdioTarget)
	if !ok || st.Command != "node" || !slices.Equal(st.Args, []string{pkg.Bin, "--stdio"}) || !slices.Equal(st.ReadOnly, []string{pkg.Dir}) {
		t.Fatalf("launched %#v, want node on the prepared package's bin, reading its folder", live.reads()[0])
	}

	env.clock.Advance(time.Minute)
	npm.answer(nil, fmt.Errorf("%w: npm registry unreachable", fetch.ErrFetch))
	if res := scanNow(t, svc, weather); res.GetScan().GetErrorKind() != string(states.ErrorKindFetch) || res.GetState() != "approved" {
		t.Fatalf("failed fetch: error kind %q, state %q; want fetch, approved", res.GetScan().GetErrorKind(), res.GetState())
	}

	env.clock.Advance(time.Minute)
	other, _ := attest.DigestOf([]byte("something else"), attest.SHA256)
	npm.answer(nil, &fetch.DigestMismatchError{Package: "@acme/weather@1.0.0", Want: declared, Got: other})
	res = scanNow(t, svc, weather)
	if res.GetScan().GetErrorKind() != string(states.ErrorKindDigestMismatch) || res.GetState() != "quarantined" {
		t.Fatalf("mismatch: error kind %q, state %q; want digest_mismatch, quarantined", res.GetScan().GetErrorKind(), res.GetState())
	}
	if v := versionRow(t, env.st, weather); v.QuarantineKind != string(states.QuarantineArtifact) {
		t.Fatalf("quarantine kind %q, want %q", v.QuarantineKind, states.QuarantineArtifact)
	}
	if n := env.st.Client.Finding.Query().Where(finding.Kind(registry.KindDigestMismatch)).CountX(ctx); n != 1 {
		t.Fatalf("%d digest mismatch findings, want 1", n)
	}
	if n := len(live.reads()); n != 1 {
		t.Fatalf("the server was launched %d times, want once (never after a failed check)", n)
	}
	if resolvable(t, svc, weather) {
		t.Fatal("quarantined version still resolves")
	}
	_, err = svc.Review.Transition(ctx, reviewer, registry.ActionRelease, weather, weatherVersion, "looks fine")
	if !errors.Is(err, registry.ErrFailedPrecondition) || !strings.Contains(err.Error(), "cannot release") {
		t.Fatalf("release of a mismatched artifact: %v, want refused", err)
	}
}

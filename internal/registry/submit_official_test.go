package registry_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/serverjson"
	"github.com/mcpreg/mcpreg/internal/states"
	"github.com/mcpreg/mcpreg/internal/store"
)

// officialRefused is a server.json that the schema accepts and the
// official registry's further rules refuse (serverjson.CheckSubmission):
// a whitespace title, an http websiteUrl and a named argument whose value
// repeats its flag. Its remote is serverJSON's, so a scan reads the same
// server.
func officialRefused(name, version string) []byte {
	return fmt.Appendf(nil, `{"$schema":%q,"name":%q,"description":"Test server","version":%q,"title":" ",
 "websiteUrl":"http://acme.example/weather",
 "packages":[{"registryType":"npm","identifier":"@acme/weather","version":"1.0.0","transport":{"type":"stdio"},
  "packageArguments":[{"type":"named","name":"--units","value":"--units=metric"}]}],
 "remotes":[{"type":"streamable-http","url":"https://mcp.example.com/mcp"}]}`, schemaURL, name, version)
}

// TestSubmitRefusesOfficialRegistryRules: a submission breaking the
// official registry's rules beyond its schema is refused as invalid, with
// every violation located, and nothing is stored.
func TestSubmitRefusesOfficialRegistryRules(t *testing.T) {
	forEach(t, func(t *testing.T, svc *registry.Services, st *store.Store) {
		ctx := context.Background()
		tests := []struct {
			name     string
			json     []byte
			pointers []string
			words    string
		}{
			{"range version", serverJSON("io.github.acme/ranged", "1.x"), []string{"/version"}, `/version: version "1.x" is a range (wildcard "x")`},
			{"several rules", officialRefused("io.github.acme/refused", "1.0.0"),
				[]string{"/packages/0/packageArguments/0/value", "/title", "/websiteUrl"}, "/title: title \" \" must not be only whitespace"},
		}
		for _, tt := range tests {
			_, err := svc.Review.Submit(ctx, owner, registry.Submission{ServerJSON: tt.json, Tools: []byte(tools)})
			var ve *serverjson.ValidationError
			if !errors.Is(err, registry.ErrInvalid) || !errors.As(err, &ve) {
				t.Fatalf("%s: err = %v, want ErrInvalid carrying the violations", tt.name, err)
			}
			if !slices.Equal(ve.Pointers(), tt.pointers) || !strings.Contains(err.Error(), "serverJson: invalid server.json: ") ||
				!strings.Contains(err.Error(), tt.words) {
				t.Fatalf("%s: err = %v, want pointers %v and %q", tt.name, err, tt.pointers, tt.words)
			}
		}
		if n := st.Client.Version.Query().CountX(ctx); n != 0 {
			t.Fatalf("versions stored = %d, want 0", n)
		}
	})
}

// TestSubmitRulesLeaveStoredVersionsReadable: a version stored before
// the submission rules existed (written here straight into the database,
// as no current path stores one) still reads and scans, since those paths
// use serverjson.Parse alone; submitting the same document is refused. A
// live submission of it is refused before the registry dials anything.
func TestSubmitRulesLeaveStoredVersionsReadable(t *testing.T) {
	ctx := context.Background()
	env, live := newUnitEnv(t), &fakeReader{}
	svc := env.service(t, registry.Scanning{Reader: live})
	approve(t, svc, registry.Submission{ServerJSON: serverJSON(weather, weatherVersion)}, weather)
	old := officialRefused(weather, weatherVersion)
	if _, err := env.st.DB.ExecContext(ctx, "UPDATE versions SET server_json = ? WHERE id = ?", old, versionRow(t, env.st, weather).ID); err != nil {
		t.Fatal(err)
	}

	v, err := svc.Review.GetVersion(ctx, reviewer, weather, weatherVersion)
	if err != nil || string(v.GetServerJson()) != string(old) {
		t.Fatalf("stored version does not read back: %v", err)
	}
	live.serve(liveSnapshot(t, weatherTools, weatherInfo))
	res := scanNow(t, svc, weather)
	if res.GetScan().GetOutcome() != string(states.OutcomeMatch) || res.GetState() != "approved" {
		t.Fatalf("scan of the stored version: outcome %q, state %q", res.GetScan().GetOutcome(), res.GetState())
	}
	if !resolvable(t, svc, weather) {
		t.Fatal("stored version no longer resolves")
	}
	reads := len(live.reads())

	_, err = svc.Review.Submit(ctx, owner, registry.Submission{ServerJSON: officialRefused(weather, "1.0.1"), Tools: []byte(weatherTools)})
	if !errors.Is(err, registry.ErrInvalid) || !strings.Contains(err.Error(), "/websiteUrl: websiteUrl") {
		t.Fatalf("submitting the stored document again: %v", err)
	}
	_, err = svc.Review.Submit(ctx, owner, registry.Submission{ServerJSON: officialRefused(weather, "1.0.2"), Live: true})
	if !errors.Is(err, registry.ErrInvalid) || len(live.reads()) != reads {
		t.Fatalf("live submission: err %v, reads %d then %d", err, reads, len(live.reads()))
	}
}

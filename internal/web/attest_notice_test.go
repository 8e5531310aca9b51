package web_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/testkit"
)

// TestReviewShowsOwnersWordDigest: an attestation whose digest the
// registry could not obtain itself (a PyPI package's _meta digest) is
// marked on the review page as the owner's word.
func TestReviewShowsOwnersWordDigest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bundle, err := os.ReadFile(testkit.Testdata(t, "attest", "sigstore-1.3.0.publish.sigstore.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc := fmt.Appendf(nil, `{"$schema":%q,"name":%q,"description":"Py weather","version":"1.0.0",
 "packages":[{"registryType":"pypi","identifier":"weather-mcp","version":"1.0.0","transport":{"type":"stdio"}}],
 "_meta":{"io.mcpreg/registry":{"packages":[{"identifier":"weather-mcp","digest":"sha256:%s"}]}}}`, schemaURL, weather, strings.Repeat("ab", 32))
	_, err = e.svc.Review.Submit(context.Background(), bootstrapAs("root"), registry.Submission{ServerJSON: doc, Tools: []byte(tools),
		Attestations: []registry.AttestationInput{{PackageIndex: 0, Bundle: bundle}}})
	if err != nil {
		t.Fatal(err)
	}
	page := e.browser(t).signIn("alice").get("/review/" + weather + "/1.0.0")
	mustContain(t, page.Body, "from server_json_meta", "<strong class=\"bad\">The digest is the owner's word</strong>", "allowUnfetchedDigests")
}

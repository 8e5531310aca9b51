package contract

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestValueLike(t *testing.T) {
	for _, name := range []string{
		"sk-proj-4f9Kx2LmQ8vR1tY6wE3uI0oP7aS5dF",
		"sk-ant-api03-abcdefghijklmnopqrstuvwx",
		"sk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"ghp_aB3dE9fG2hJ5kL8mN1pQ4rS7tU0vW3xY6z",
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
		"glpat-abcdefghij0123456789",
		"xoxb-1234567890-abcdefghijkl",
		"AKIAIOSFODNN7EXAMPLE",
		"AIzaSyA1234567890abcdefghijklmnopqrstuv",
		"ya29.a0AfH6SMBabcdefghijklmnopqrst",
		"npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"hf_abcdefghijklmnopqrstuvwxyzABCDEF",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----",
		"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"dGhpcyBpcyBhIHNlY3JldCB2YWx1ZSBmb3IgdGVzdGluZw==",
		"Xq7Lp2Rk9Vz4Tn8Wm3Bs6Hd1Jf5Gc0Ya",
		"vault:kv/prod/Xq7Lp2Rk9Vz4Tn8Wm3Bs6Hd1Jf5Gc0Ya",
		"mK4pQ9xR2vT7wL1nB8cF3hJ6sD0gA5zE",
	} {
		if valueLike(name) == "" {
			t.Errorf("valueLike(%q) = \"\", want a reason", name)
		}
	}
}

func TestValueLikeSparesNames(t *testing.T) {
	for _, name := range []string{
		"helpdesk_service_account",
		"OPENAI_API_KEY",
		"GITHUB_TOKEN",
		"AWS_SECRET_ACCESS_KEY",
		"vault:kv/prod/ticketing/api-key",
		"arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-password",
		"projects/acme-prod/secrets/ticketing-oauth-client/versions/3",
		"HelpdeskServiceAccountToken2024",
		"db-password-2024-rotated",
		"sk-config",
		"service_account_helpdesk",
		"ticketing.oauth.clientSecret",
		"K8sSecretRef/ns1/WarehouseApiKeyV2",
		"AzureKeyVault:kv-prod-weu/Ticketing-Api-Key-01",
		"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
		"Ticketing-Api-Key-01",
		"WarehouseReadOnlyServiceAccount2025",
		"PROD_TICKETING_OAUTH_CLIENT_SECRET_V2",
	} {
		if why := valueLike(name); why != "" {
			t.Errorf("valueLike(%q) = %q, want \"\"", name, why)
		}
	}
}

func TestRedact(t *testing.T) {
	if got := redact("ghp_secretsecretsecret"); got != "ghp_…(22 characters)" || strings.Contains(got, "secret") {
		t.Errorf("redact = %q", got)
	}
	if got := redact("short"); got != "…(5 characters)" {
		t.Errorf("redact = %q", got)
	}
}

// TestValueLikeCatchesRandomKeys: generated 32-character mixed-case keys
// without a known prefix are caught nearly always (fixed seed: the outcome
// is deterministic).
func TestValueLikeCatchesRandomKeys(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewPCG(1, 2))
	caught := 0
	for range 1000 {
		b := make([]byte, 32)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if valueLike(string(b)) != "" {
			caught++
		}
	}
	if caught < 970 {
		t.Errorf("caught %d of 1000 random keys, want at least 970", caught)
	}
}

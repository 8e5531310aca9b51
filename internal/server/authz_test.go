package server_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/mcpreg/mcpreg/internal/identity"
	"github.com/mcpreg/mcpreg/internal/registry"
	"github.com/mcpreg/mcpreg/internal/server/servertest"
	"github.com/mcpreg/mcpreg/internal/storetest"
	"github.com/mcpreg/mcpreg/internal/testkit"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

type rpcCase struct {
	name    string
	allowed []string // roles that pass authorisation
	call    func(ctx context.Context, r mcpregv1.RegistryServiceClient, tk mcpregv1.TokenServiceClient) error
}

func rpcCases() []rpcCase {
	all := []string{"admin", "reviewer", "owner", "host"}
	read := []string{"admin", "reviewer", "owner"}
	decide := []string{"admin", "reviewer"}
	admin := []string{"admin"}
	tr := &mcpregv1.TransitionRequest{Name: "io.github.acme/weather", Version: "9.9.9", Reason: "matrix"}
	ignore := func(_ any, err error) error { return err }
	discoverers := []string{"admin", "reviewer", "host"}
	return []rpcCase{
		{"ResolveServers", discoverers, func(ctx context.Context, _ mcpregv1.RegistryServiceClient, tc mcpregv1.TokenServiceClient) error {
			return ignore(discoveryClient(tc).ResolveServers(ctx, &mcpregv1.ResolveServersRequest{}))
		}},
		{"CheckConnection", []string{"admin", "host"}, func(ctx context.Context, _ mcpregv1.RegistryServiceClient, tc mcpregv1.TokenServiceClient) error {
			return ignore(discoveryClient(tc).CheckConnection(ctx, &mcpregv1.CheckConnectionRequest{Name: "io.github.acme/weather", Tools: `{"tools":[]}`}))
		}},
		{"PostReceipts", []string{"admin", "host"}, func(ctx context.Context, _ mcpregv1.RegistryServiceClient, tc mcpregv1.TokenServiceClient) error {
			return ignore(discoveryClient(tc).PostReceipts(ctx, &mcpregv1.PostReceiptsRequest{Receipts: []*mcpregv1.CallReceipt{{ReceiptId: "rcpt_x"}}}))
		}},
		{"ListReceipts", []string{"admin", "reviewer"}, func(ctx context.Context, _ mcpregv1.RegistryServiceClient, tc mcpregv1.TokenServiceClient) error {
			return ignore(discoveryClient(tc).ListReceipts(ctx, &mcpregv1.ListReceiptsRequest{}))
		}},
		{"SubmitVersion", []string{"admin", "owner"}, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.SubmitVersion(ctx, &mcpregv1.SubmitVersionRequest{ServerJson: "{}", Tools: "[]"}))
		}},
		{"ListServers", read, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ListServers(ctx, &mcpregv1.ListServersRequest{}))
		}},
		{"GetServer", read, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.GetServer(ctx, &mcpregv1.GetServerRequest{Name: "io.github.acme/weather"}))
		}},
		{"ListVersions", read, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ListVersions(ctx, &mcpregv1.ListVersionsRequest{}))
		}},
		{"GetVersion", read, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.GetVersion(ctx, &mcpregv1.GetVersionRequest{Name: "io.github.acme/weather", Version: "1.0.0"}))
		}},
		{"CompareVersions", read, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.CompareVersions(ctx, &mcpregv1.CompareVersionsRequest{Name: "io.github.acme/weather", Version: "1.0.0"}))
		}},
		{"ApproveVersion", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ApproveVersion(ctx, tr))
		}},
		{"RejectVersion", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.RejectVersion(ctx, tr))
		}},
		{"QuarantineVersion", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.QuarantineVersion(ctx, tr))
		}},
		{"ReleaseVersion", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ReleaseVersion(ctx, tr))
		}},
		{"RevokeVersion", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.RevokeVersion(ctx, tr))
		}},
		{"RepinVersion", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.RepinVersion(ctx, &mcpregv1.RepinVersionRequest{Name: tr.GetName(), Version: tr.GetVersion(), Reason: "matrix"}))
		}},
		{"SetScanCredential", admin, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.SetScanCredential(ctx, &mcpregv1.SetScanCredentialRequest{Name: tr.GetName(), Label: "matrix", Env: map[string]string{"K": "v"}}))
		}},
		{"ListScanCredentials", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ListScanCredentials(ctx, &mcpregv1.ListScanCredentialsRequest{Name: tr.GetName()}))
		}},
		{"DeleteScanCredential", admin, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.DeleteScanCredential(ctx, &mcpregv1.DeleteScanCredentialRequest{Name: tr.GetName(), Label: "matrix"}))
		}},
		{"SetVersionStatus", read, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.SetVersionStatus(ctx, &mcpregv1.SetVersionStatusRequest{Name: tr.GetName(), Version: tr.GetVersion(), Status: "active"}))
		}},
		{"AddUpstream", admin, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.AddUpstream(ctx, &mcpregv1.AddUpstreamRequest{Name: "matrix", Url: "https://registry.example.com", Namespaces: []string{"*"}}))
		}},
		{"ListUpstreams", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ListUpstreams(ctx, &mcpregv1.ListUpstreamsRequest{}))
		}},
		{"SyncUpstream", admin, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.SyncUpstream(ctx, &mcpregv1.SyncUpstreamRequest{Name: "nope"}))
		}},
		{"RemoveUpstream", admin, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.RemoveUpstream(ctx, &mcpregv1.RemoveUpstreamRequest{Name: "nope"}))
		}},
		{"ListAuditEvents", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ListAuditEvents(ctx, &mcpregv1.ListAuditEventsRequest{}))
		}},
		{"ListAuditCheckpoints", all, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ListAuditCheckpoints(ctx, &mcpregv1.ListAuditCheckpointsRequest{}))
		}},
		{"VerifyAuditChain", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.VerifyAuditChain(ctx, &mcpregv1.VerifyAuditChainRequest{}))
		}},
		{"ScanVersion", all, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ScanVersion(ctx, &mcpregv1.ScanVersionRequest{Name: "io.github.acme/weather", Version: "9.9.9"}))
		}},
		{"ListScans", read, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ListScans(ctx, &mcpregv1.ListScansRequest{Name: "io.github.acme/weather", Version: "9.9.9"}))
		}},
		{"ListDriftEvents", read, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ListDriftEvents(ctx, &mcpregv1.ListDriftEventsRequest{}))
		}},
		{"AcceptDrift", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.AcceptDrift(ctx, &mcpregv1.DriftDecisionRequest{Id: 999, Reason: "matrix"}))
		}},
		{"DeclineDrift", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.DeclineDrift(ctx, &mcpregv1.DriftDecisionRequest{Id: 999, Reason: "matrix"}))
		}},
		{"GetServerPolicy", read, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.GetServerPolicy(ctx, &mcpregv1.GetServerPolicyRequest{Name: "io.github.acme/weather"}))
		}},
		{"UpdateServerPolicy", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.UpdateServerPolicy(ctx, &mcpregv1.UpdateServerPolicyRequest{Name: "io.github.acme/weather", Reason: "matrix"}))
		}},
		{"ConfirmServerPolicy", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ConfirmServerPolicy(ctx, &mcpregv1.ConfirmServerPolicyRequest{Name: "io.github.acme/weather", Digest: "sha256:00", Reason: "matrix"}))
		}},
		{"WhoAmI", all, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.WhoAmI(ctx, &mcpregv1.WhoAmIRequest{}))
		}},
		{"AddAttestation", []string{"admin", "owner"}, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.AddAttestation(ctx, &mcpregv1.AddAttestationRequest{Name: "io.github.acme/weather", Version: "9.9.9",
				Attestation: &mcpregv1.AttestationInput{Bundle: "{}"}}))
		}},
		{"ConfirmAttestation", decide, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ConfirmAttestation(ctx, &mcpregv1.ConfirmAttestationRequest{Name: "io.github.acme/weather", Version: "9.9.9",
				Id: 1, Reason: "matrix"}))
		}},
		{"VerifyAttestation", all, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.VerifyAttestation(ctx, &mcpregv1.VerifyAttestationRequest{Bundle: "{}", ArtifactDigest: "sha256:00"}))
		}},
		{"ReverifyAttestations", admin, func(ctx context.Context, r mcpregv1.RegistryServiceClient, _ mcpregv1.TokenServiceClient) error {
			return ignore(r.ReverifyAttestations(ctx, &mcpregv1.ReverifyAttestationsRequest{}))
		}},
		{"CreateToken", admin, func(ctx context.Context, _ mcpregv1.RegistryServiceClient, tk mcpregv1.TokenServiceClient) error {
			return ignore(tk.CreateToken(ctx, &mcpregv1.CreateTokenRequest{Principal: "matrix-new", Role: "host"}))
		}},
		{"ListTokens", admin, func(ctx context.Context, _ mcpregv1.RegistryServiceClient, tk mcpregv1.TokenServiceClient) error {
			return ignore(tk.ListTokens(ctx, &mcpregv1.ListTokensRequest{}))
		}},
		{"RevokeToken", admin, func(ctx context.Context, _ mcpregv1.RegistryServiceClient, tk mcpregv1.TokenServiceClient) error {
			return ignore(tk.RevokeToken(ctx, &mcpregv1.RevokeTokenRequest{Id: "tok_doesnotexist"}))
		}},
	}
}

// TestEveryRPCEveryRole calls every RPC with every role and with bad
// credentials: the roles the README allows pass authorisation, every other
// caller is refused with PermissionDenied or Unauthenticated.
func TestEveryRPCEveryRole(t *testing.T) {
	storetest.EachDialect(t, func(t *testing.T, dialect string) {
		in := servertest.Start(t, dialect)
		ctx := context.Background()
		tokens := map[string]string{
			"admin":    in.Token(t, "m-admin", registry.RoleAdmin),
			"reviewer": in.Token(t, "m-reviewer", registry.RoleReviewer),
			"owner":    in.Token(t, "m-owner", registry.RoleOwner, "io.github.acme"),
			"host":     in.Token(t, "m-host", registry.RoleHost),
		}
		bad := badCredentials(t, in)
		conn, err := grpc.NewClient(in.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		rc := mcpregv1.NewRegistryServiceClient(conn)
		tc := tokenAndDiscovery{mcpregv1.NewTokenServiceClient(conn), mcpregv1.NewDiscoveryServiceClient(conn)}
		cases := rpcCases()
		if len(cases) != len(mcpregv1.RegistryService_ServiceDesc.Methods)+len(mcpregv1.TokenService_ServiceDesc.Methods)+
			len(mcpregv1.DiscoveryService_ServiceDesc.Methods) {
			t.Fatalf("matrix covers %d RPCs, the API has more: add them", len(cases))
		}
		for _, c := range cases {
			for role, tok := range tokens {
				t.Run(c.name+"/"+role, func(t *testing.T) {
					err := c.call(withToken(ctx, tok), rc, tc)
					code := status.Code(err)
					if slices.Contains(c.allowed, role) {
						if code == codes.PermissionDenied && !isDomainDenial(err) || code == codes.Unauthenticated {
							t.Fatalf("role %s refused: %v", role, err)
						}
					} else if code != codes.PermissionDenied {
						t.Fatalf("role %s got %v, want PermissionDenied", role, err)
					}
				})
			}
			for what, md := range bad {
				t.Run(c.name+"/"+what, func(t *testing.T) {
					if code := status.Code(c.call(metadata.NewOutgoingContext(ctx, md), rc, tc)); code != codes.Unauthenticated {
						t.Fatalf("%s: got %v, want Unauthenticated", what, code)
					}
				})
			}
		}
	})
}

// tokenAndDiscovery hands the discovery client to matrix cases through the
// token client parameter.
type tokenAndDiscovery struct {
	mcpregv1.TokenServiceClient
	mcpregv1.DiscoveryServiceClient
}

func discoveryClient(tc mcpregv1.TokenServiceClient) mcpregv1.DiscoveryServiceClient {
	return tc.(tokenAndDiscovery).DiscoveryServiceClient
}

// isDomainDenial tells a per-call denial (namespace, four-eyes) from the role
// check, which names the RPC.
func isDomainDenial(err error) bool {
	msg := status.Convert(err).Message()
	return !slices.ContainsFunc(rpcCases(), func(c rpcCase) bool { return contains(msg, "may not call "+c.name) })
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func withToken(ctx context.Context, tok string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok)
}

func badCredentials(t *testing.T, in *servertest.Instance) map[string]metadata.MD {
	t.Helper()
	ctx := context.Background()
	admin := &registry.Caller{Principal: "bootstrap", Role: registry.RoleAdmin}
	// The expired token is issued by a service over the same database whose
	// clock is an hour behind: it expired 59 minutes ago, with no sleep.
	clock := testkit.NewClock(time.Now().UTC().Add(-time.Hour))
	past := identity.New(in.Store, in.Service.Audit.AuditWriter(), identity.WithClock(clock.Now))
	expiring, err := past.CreateToken(ctx, admin, identity.NewToken{Principal: "m-expired", Role: registry.RoleAdmin, TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	revoked, err := in.Identity.CreateToken(ctx, admin, identity.NewToken{Principal: "m-revoked", Role: registry.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Identity.RevokeToken(ctx, admin, revoked.Token.GetId(), "test"); err != nil {
		t.Fatal(err)
	}
	return map[string]metadata.MD{
		"no-token":        metadata.MD{},
		"malformed-token": metadata.Pairs("authorization", "Bearer not-a-token"),
		"not-bearer":      metadata.Pairs("authorization", "Basic YWRtaW46YWRtaW4="),
		"unknown-token":   metadata.Pairs("authorization", "Bearer mcpreg_"+"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
		"expired-token":   metadata.Pairs("authorization", "Bearer "+expiring.Secret),
		"revoked-token":   metadata.Pairs("authorization", "Bearer "+revoked.Secret),
	}
}

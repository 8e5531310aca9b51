package server

import (
	"slices"

	"github.com/mcpreg/mcpreg/internal/registry"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

var (
	everyone  = []registry.Role{registry.RoleAdmin, registry.RoleReviewer, registry.RoleOwner, registry.RoleHost}
	readers   = []registry.Role{registry.RoleAdmin, registry.RoleReviewer, registry.RoleOwner}
	deciders  = []registry.Role{registry.RoleAdmin, registry.RoleReviewer}
	adminOnly = []registry.Role{registry.RoleAdmin}
	// discoveryReaders: hosts, and the roles that read everything; owners
	// never read discovery.
	discoveryReaders = []registry.Role{registry.RoleAdmin, registry.RoleReviewer, registry.RoleHost}
)

// methodRoles is the first authorisation check of every RPC: which roles may
// call it at all. The registry then checks namespaces and four-eyes per call.
// An RPC missing here is refused to everyone (fail closed).
var methodRoles = map[string][]registry.Role{
	mcpregv1.RegistryService_SubmitVersion_FullMethodName:        {registry.RoleAdmin, registry.RoleOwner},
	mcpregv1.RegistryService_ListServers_FullMethodName:          readers,
	mcpregv1.RegistryService_GetServer_FullMethodName:            readers,
	mcpregv1.RegistryService_ListVersions_FullMethodName:         readers,
	mcpregv1.RegistryService_GetVersion_FullMethodName:           readers,
	mcpregv1.RegistryService_CompareVersions_FullMethodName:      readers,
	mcpregv1.RegistryService_ApproveVersion_FullMethodName:       deciders,
	mcpregv1.RegistryService_RejectVersion_FullMethodName:        deciders,
	mcpregv1.RegistryService_QuarantineVersion_FullMethodName:    deciders,
	mcpregv1.RegistryService_ReleaseVersion_FullMethodName:       deciders,
	mcpregv1.RegistryService_RevokeVersion_FullMethodName:        deciders,
	mcpregv1.RegistryService_RepinVersion_FullMethodName:         deciders,
	mcpregv1.RegistryService_SetScanCredential_FullMethodName:    adminOnly,
	mcpregv1.RegistryService_ListScanCredentials_FullMethodName:  deciders,
	mcpregv1.RegistryService_DeleteScanCredential_FullMethodName: adminOnly,
	mcpregv1.RegistryService_ListAuditEvents_FullMethodName:      deciders,
	mcpregv1.RegistryService_VerifyAuditChain_FullMethodName:     deciders,
	mcpregv1.RegistryService_ScanVersion_FullMethodName:          everyone,
	mcpregv1.RegistryService_ListScans_FullMethodName:            readers,
	mcpregv1.RegistryService_ListDriftEvents_FullMethodName:      readers,
	mcpregv1.RegistryService_AcceptDrift_FullMethodName:          deciders,
	mcpregv1.RegistryService_DeclineDrift_FullMethodName:         deciders,
	mcpregv1.RegistryService_GetServerPolicy_FullMethodName:      readers,
	mcpregv1.RegistryService_UpdateServerPolicy_FullMethodName:   deciders,
	mcpregv1.RegistryService_ConfirmServerPolicy_FullMethodName:  deciders,
	mcpregv1.RegistryService_WhoAmI_FullMethodName:               everyone,
	mcpregv1.RegistryService_AddAttestation_FullMethodName:       {registry.RoleAdmin, registry.RoleOwner},
	mcpregv1.RegistryService_ConfirmAttestation_FullMethodName:   deciders,
	mcpregv1.RegistryService_VerifyAttestation_FullMethodName:    everyone,
	mcpregv1.RegistryService_ReverifyAttestations_FullMethodName: adminOnly,
	mcpregv1.RegistryService_SetVersionStatus_FullMethodName:     readers,
	mcpregv1.RegistryService_AddUpstream_FullMethodName:          adminOnly,
	mcpregv1.RegistryService_ListUpstreams_FullMethodName:        deciders,
	mcpregv1.RegistryService_RemoveUpstream_FullMethodName:       adminOnly,
	mcpregv1.RegistryService_SyncUpstream_FullMethodName:         adminOnly,
	mcpregv1.TokenService_CreateToken_FullMethodName:             adminOnly,
	mcpregv1.TokenService_ListTokens_FullMethodName:              adminOnly,
	mcpregv1.TokenService_RevokeToken_FullMethodName:             adminOnly,
	mcpregv1.DiscoveryService_ResolveServers_FullMethodName:      discoveryReaders,
	mcpregv1.DiscoveryService_CheckConnection_FullMethodName:     {registry.RoleAdmin, registry.RoleHost},
	mcpregv1.DiscoveryService_PostReceipts_FullMethodName:        {registry.RoleAdmin, registry.RoleHost},
	mcpregv1.DiscoveryService_ListReceipts_FullMethodName:        {registry.RoleAdmin, registry.RoleReviewer},

	// Checkpoints carry a length, a hash and a time, nothing about the
	// events; the latest is public (/.well-known/mcpreg/audit-checkpoint).
	mcpregv1.RegistryService_ListAuditCheckpoints_FullMethodName: everyone,
}

// publicMethods need no token.
var publicMethods = map[string]bool{
	"/grpc.health.v1.Health/Check": true,
	"/grpc.health.v1.Health/Watch": true,
	"/grpc.health.v1.Health/List":  true,
}

func roleAllowed(method string, r registry.Role) bool {
	return slices.Contains(methodRoles[method], r)
}

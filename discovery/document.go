// Package discovery is what agent hosts rely on: the signed discovery
// document (which MCP servers a host may connect to, with connection
// details, artifact digests, pins, capability contract, attestation
// summary and approval facts) and its verification. It is pure: the
// registry builds documents, hosts verify and read them.
package discovery

import (
	"encoding/json"
	"time"
)

// DocumentType names the document format in its "type" member.
const DocumentType = "mcpreg-discovery-v1"

// Document is the payload of the signed envelope.
type Document struct {
	Type string `json:"type"`
	// IssuedAt and ExpiresAt bound the document's validity: a host refuses
	// it after ExpiresAt.
	IssuedAt  time.Time `json:"issuedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Sequence only grows (it counts the registry's audited changes): a
	// host refuses a document older than the last one it accepted.
	Sequence int64 `json:"sequence"`
	// Environments are the host environment labels the answer was computed
	// for (the caller's token); empty for a caller without labels.
	Environments []string `json:"environments"`
	// AllEnvironments is set for callers that read every version whatever
	// its environments (reviewers, admins).
	AllEnvironments bool `json:"allEnvironments,omitempty"`
	// Query echoes the filters applied.
	Query Query `json:"query"`
	// Servers are sorted by name; one entry per server unless a version
	// was asked for.
	Servers []Entry `json:"servers"`
	// NextPageToken fetches the next page; empty on the last one.
	NextPageToken string `json:"nextPageToken,omitempty"`
	// TotalSize counts the entries of every page.
	TotalSize int `json:"totalSize"`
}

// Query is what a resolve asked for.
type Query struct {
	Name      string `json:"name,omitempty"`
	Version   string `json:"version,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Owner     string `json:"owner,omitempty"`
	PageSize  int    `json:"pageSize"`
	PageToken string `json:"pageToken,omitempty"`
}

// Entry is one approved server version.
type Entry struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	Namespace   string `json:"namespace"`
	Owner       string `json:"owner"`
	// Latest says this is the highest approved version the caller may use.
	Latest   bool      `json:"latest"`
	Packages []Package `json:"packages,omitempty"`
	Remotes  []Remote  `json:"remotes,omitempty"`
	Pins     Pins      `json:"pins"`
	// Contract is the normalised capability contract, exactly what
	// Pins.ContractHash covers.
	Contract     json.RawMessage `json:"contract"`
	Attestations []Attestation   `json:"attestations"`
	Approval     Approval        `json:"approval"`
	// Status is "deprecated" for a version its owner or a reviewer
	// deprecated (it stays approved and usable), with StatusMessage
	// saying why or what to use instead; empty for an active version.
	Status        string `json:"status,omitempty"`
	StatusMessage string `json:"statusMessage,omitempty"`
}

// StatusDeprecated is Entry.Status for a deprecated version.
const StatusDeprecated = "deprecated"

// Package is how to obtain and start a package, and the digest its
// artifact must have.
type Package struct {
	RegistryType string `json:"registryType"`
	Identifier   string `json:"identifier"`
	Version      string `json:"version,omitempty"`
	Transport    string `json:"transport,omitempty"`
	// Digest is "ALG:HEX" when the version declares one; a host checks the
	// artifact it runs against it.
	Digest       string `json:"digest,omitempty"`
	DigestSource string `json:"digestSource,omitempty"`
}

// Remote is a hosted server endpoint.
type Remote struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// Pins are the hashes the server must still match. SpecVersion names the
// pin specification they follow: mcpreg-pin-v1 (tools, schemas,
// instructions, contract) or mcpreg-pin-v2, which adds PromptsHash and
// ResourcesHash (empty under v1). Hosts compare prompts only under v2.
type Pins struct {
	SpecVersion        string    `json:"specVersion"`
	Revision           int       `json:"revision"`
	ToolDefinitionHash string    `json:"toolDefinitionHash"`
	SchemaHash         string    `json:"schemaHash"`
	InstructionsHash   string    `json:"instructionsHash"`
	ContractHash       string    `json:"contractHash"`
	PromptsHash        string    `json:"promptsHash,omitempty"`
	ResourcesHash      string    `json:"resourcesHash,omitempty"`
	Tools              []ToolPin `json:"tools"`
	// Prompts are each prompt's hash under mcpreg-pin-v2 (by name): a
	// runtime gate checks a prompt a client gets against its own pin.
	Prompts []ToolPin `json:"prompts,omitempty"`
}

// ToolPin is one tool's name and hash.
type ToolPin struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
	// Scopes are the OAuth scopes the registry's scan credentials had in
	// common among those the tool was listed to (empty: read without
	// credentials). A host whose token lacks them may not be shown the
	// tool, which is not drift.
	Scopes []string `json:"scopes,omitempty"`
}

// Attestation summarises a verified attestation of a package.
type Attestation struct {
	PackageIndex     int        `json:"packageIndex"`
	ArtifactDigest   string     `json:"artifactDigest"`
	Issuer           string     `json:"issuer,omitempty"`
	SAN              string     `json:"san,omitempty"`
	SourceRepository string     `json:"sourceRepository,omitempty"`
	KeyFingerprint   string     `json:"keyFingerprint,omitempty"`
	IntegratedTime   *time.Time `json:"integratedTime,omitempty"`
	CheckedAt        time.Time  `json:"checkedAt"`
}

// Approval says who approved the version and when.
type Approval struct {
	ApprovedAt  time.Time `json:"approvedAt"`
	ApprovedBy  string    `json:"approvedBy"`
	SubmittedBy string    `json:"submittedBy"`
	Reason      string    `json:"reason,omitempty"`
}

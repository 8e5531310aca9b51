package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/scancredential"
	"github.com/mcpreg/mcpreg/internal/secrets"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// CredentialInput is one set of credentials the scanner reads a server
// with: HTTP headers sent to the server's own origin (remotes), or
// environment variables given to its process inside the sandbox
// (packages), and the OAuth scopes they carry.
type CredentialInput struct {
	Headers map[string]string
	Env     map[string]string
	Scopes  []string
	// Origin (scheme://host[:port]) is the only origin the headers are
	// sent to; Package the only package identifier whose process gets the
	// variables. Each is required with what it guards.
	Origin  string
	Package string
}

// Limits of one credential set.
const (
	maxCredentialValues = 16
	maxCredentialValue  = 8 << 10
	maxCredentialScopes = 64
	// minSecretLength: values this short are not searched for in what a
	// server answers (they would match ordinary text).
	minSecretLength = 6
)

var (
	credentialLabelRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	headerNameRE      = regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+.^_` + "`" + `|~-]{1,128}$`)
	envNameRE         = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	scopeRE           = regexp.MustCompile(`^[\x21\x23-\x5B\x5D-\x7E]{1,256}$`) // RFC 6749 scope-token
)

// headers the scanner sets itself, never from a credential.
var reservedHeaders = []string{"host", "content-length", "content-type", "accept", "connection", "transfer-encoding",
	"mcp-session-id", "mcp-protocol-version", "last-event-id"}

// credential is one opened credential set.
type credential struct {
	label  string
	scopes []string
	CredentialInput
}

// secretsOf are the values of c long enough to look for.
func (c credential) secretsOf() []string {
	var out []string
	for _, m := range []map[string]string{c.Headers, c.Env} {
		for _, v := range m {
			if len(v) >= minSecretLength {
				out = append(out, v)
			}
			// "Bearer TOKEN": the token alone may be echoed.
			if _, tok, ok := strings.Cut(v, " "); ok && len(tok) >= minSecretLength {
				out = append(out, tok)
			}
		}
	}
	return out
}

func checkCredential(name, label string, in CredentialInput) error {
	if !serverNameRE.MatchString(name) {
		return invalidf("server name %q does not match ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", name)
	}
	if !credentialLabelRE.MatchString(label) {
		return invalidf("label %q: want 1-63 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit", label)
	}
	if len(in.Headers)+len(in.Env) == 0 {
		return invalidf("credentials %s: give at least one header or environment variable", label)
	}
	if len(in.Headers)+len(in.Env) > maxCredentialValues {
		return invalidf("credentials %s: %d headers and variables, the limit is %d", label, len(in.Headers)+len(in.Env), maxCredentialValues)
	}
	for _, k := range slices.Sorted(maps.Keys(in.Headers)) {
		v := in.Headers[k]
		switch {
		case !headerNameRE.MatchString(k):
			return invalidf("credentials %s: header name %q is not an HTTP token", label, k)
		case slices.Contains(reservedHeaders, strings.ToLower(k)):
			return invalidf("credentials %s: header %s is set by the scanner itself", label, k)
		case v == "" || len(v) > maxCredentialValue || strings.ContainsAny(v, "\r\n\x00"):
			return invalidf("credentials %s: header %s: want 1-%d bytes without line breaks or NUL", label, k, maxCredentialValue)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in.Env)) {
		v := in.Env[k]
		switch {
		case !envNameRE.MatchString(k):
			return invalidf("credentials %s: environment variable name %q: want letters, digits and '_', not starting with a digit", label, k)
		case v == "" || len(v) > maxCredentialValue || strings.ContainsRune(v, 0):
			return invalidf("credentials %s: environment variable %s: want 1-%d bytes without NUL", label, k, maxCredentialValue)
		}
	}
	if len(in.Headers) > 0 {
		if err := checkOrigin(in.Origin); err != nil {
			return invalidf("credentials %s: origin: %v", label, err)
		}
	} else if in.Origin != "" {
		return invalidf("credentials %s: origin is for headers, and there are none", label)
	}
	if len(in.Env) > 0 && (in.Package == "" || len(in.Package) > 214 || strings.ContainsAny(in.Package, " \t\r\n\x00")) {
		return invalidf("credentials %s: package: the identifier of the package whose process gets the variables is required (e.g. @acme/weather-mcp)", label)
	} else if len(in.Env) == 0 && in.Package != "" {
		return invalidf("credentials %s: package is for environment variables, and there are none", label)
	}
	if len(in.Scopes) > maxCredentialScopes {
		return invalidf("credentials %s: %d scopes, the limit is %d", label, len(in.Scopes), maxCredentialScopes)
	}
	for _, sc := range in.Scopes {
		if !scopeRE.MatchString(sc) {
			return invalidf("credentials %s: scope %q is not an OAuth scope token", label, sc)
		}
	}
	return nil
}

// credentialAD binds a sealed credential to its server and label.
func credentialAD(name, label string) []byte { return []byte(name + "\x00" + label) }

func (s *Credentials) secretsKey() (*secrets.Key, error) {
	if s.scanning == nil || s.scanning.SecretsKey == nil {
		return nil, fmt.Errorf("%w: scan credentials need live reading and a secrets key (mcpregd serve --secrets-key)", ErrFailedPrecondition)
	}
	return s.scanning.SecretsKey, nil
}

// SetScanCredential stores (or replaces) the credential set label of the
// server name, sealed. Admins only; the values are never shown again.
func (s *Credentials) SetScanCredential(ctx context.Context, c *Caller, name, label string, in CredentialInput) (*mcpregv1.ScanCredential, error) {
	if c.Role != RoleAdmin {
		return nil, deniedf("role %s may not set scan credentials (admins do)", c.Role)
	}
	if err := checkCredential(name, label, in); err != nil {
		return nil, err
	}
	key, err := s.secretsKey()
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(struct {
		Headers map[string]string `json:"headers,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
	}{in.Headers, in.Env})
	if err != nil {
		return nil, err
	}
	sealed, err := key.Seal(plain, credentialAD(name, label))
	if err != nil {
		return nil, err
	}
	scopes := slices.Compact(slices.Sorted(slices.Values(in.Scopes)))
	var out *ent.ScanCredential
	err = s.store.WithTx(ctx, func(tx *ent.Tx) error {
		if _, err := tx.ScanCredential.Delete().Where(scancredential.ServerName(name), scancredential.LabelEQ(label)).Exec(ctx); err != nil {
			return err
		}
		out, err = tx.ScanCredential.Create().SetServerName(name).SetLabel(label).SetScopes(orEmptyStrings(scopes)).
			SetHeaderNames(sortedKeys(in.Headers)).SetEnvNames(sortedKeys(in.Env)).SetOrigin(in.Origin).SetPackage(in.Package).
			SetSealed(sealed).SetKeyID(key.ID()).
			SetCreatedBy(c.Principal).SetCreatedAt(s.now()).Save(ctx)
		if err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "scan_credential.set", Subject: name, RequestID: c.RequestID,
			Details: fmt.Sprintf("label=%s headers=%s origin=%s env=%s package=%s scopes=%s key=%s", label, strings.Join(out.HeaderNames, ","),
				in.Origin, strings.Join(out.EnvNames, ","), in.Package, strings.Join(scopes, " "), key.ID())})
	})
	if err != nil {
		return nil, err
	}
	return credentialProto(out), nil
}

// ListScanCredentials names a server's credential sets (never their values).
func (s *Credentials) ListScanCredentials(ctx context.Context, c *Caller, name string) ([]*mcpregv1.ScanCredential, error) {
	if !c.MayDecide() {
		return nil, deniedf("role %s may not list scan credentials", c.Role)
	}
	rows, err := s.store.Client.ScanCredential.Query().Where(scancredential.ServerName(name)).
		Order(ent.Asc(scancredential.FieldLabel)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*mcpregv1.ScanCredential, len(rows))
	for i, r := range rows {
		out[i] = credentialProto(r)
	}
	return out, nil
}

// DeleteScanCredential removes a credential set. Admins only.
func (s *Credentials) DeleteScanCredential(ctx context.Context, c *Caller, name, label string) (*mcpregv1.ScanCredential, error) {
	if c.Role != RoleAdmin {
		return nil, deniedf("role %s may not delete scan credentials (admins do)", c.Role)
	}
	var out *ent.ScanCredential
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		var err error
		out, err = tx.ScanCredential.Query().Where(scancredential.ServerName(name), scancredential.LabelEQ(label)).Only(ctx)
		if ent.IsNotFound(err) {
			return notFoundf("scan credentials %s of %s", label, name)
		} else if err != nil {
			return err
		}
		if err := tx.ScanCredential.DeleteOne(out).Exec(ctx); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditRecord{Actor: c.Principal, Action: "scan_credential.delete", Subject: name,
			RequestID: c.RequestID, Details: "label=" + label})
	})
	if err != nil {
		return nil, err
	}
	return credentialProto(out), nil
}

// credentialsFor opens the credential sets of server name, by label. A
// set that does not open (another key, an altered row) fails the scan:
// reading without it would pin a partial list.
func (s *Credentials) credentialsFor(ctx context.Context, name string) ([]credential, error) {
	rows, err := s.store.Client.ScanCredential.Query().Where(scancredential.ServerName(name)).
		Order(ent.Asc(scancredential.FieldLabel)).All(ctx)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	key, err := s.secretsKey()
	if err != nil {
		return nil, err
	}
	out := make([]credential, len(rows))
	for i, r := range rows {
		plain, err := key.Open(r.Sealed, credentialAD(name, r.Label))
		if err != nil {
			return nil, fmt.Errorf("%w: scan credentials %s of %s were sealed with key %s, this registry's secrets key is %s, or were altered: set them again",
				ErrFailedPrecondition, r.Label, name, r.KeyID, key.ID())
		}
		var in CredentialInput
		if err := json.Unmarshal(plain, &struct {
			Headers *map[string]string `json:"headers"`
			Env     *map[string]string `json:"env"`
		}{&in.Headers, &in.Env}); err != nil {
			return nil, fmt.Errorf("scan credentials %s of %s: %w", r.Label, name, err)
		}
		in.Origin, in.Package = r.Origin, r.Package
		out[i] = credential{label: r.Label, scopes: r.Scopes, CredentialInput: in}
	}
	return out, nil
}

func credentialProto(r *ent.ScanCredential) *mcpregv1.ScanCredential {
	return &mcpregv1.ScanCredential{Name: r.ServerName, Label: r.Label, Scopes: r.Scopes, HeaderNames: r.HeaderNames,
		EnvNames: r.EnvNames, Origin: r.Origin, Package: r.Package, KeyId: r.KeyID, CreatedBy: r.CreatedBy, CreatedAt: ts(r.CreatedAt)}
}

func sortedKeys(m map[string]string) []string { return orEmptyStrings(slices.Sorted(maps.Keys(m))) }

func orEmptyStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// checkOrigin requires an origin: http or https, a host, no path, query,
// fragment or user information.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	switch {
	case o == "":
		return errors.New("required with headers: the scheme://host[:port] the headers may be sent to")
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.User != nil, u.RawQuery != "", u.Fragment != "",
		u.Path != "" && u.Path != "/", u.Opaque != "":
		return fmt.Errorf("%q: want scheme://host[:port], http or https", o)
	}
	return nil
}

// originOf is scheme://host[:port] of a URL, lower-cased ("" if unreadable).
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

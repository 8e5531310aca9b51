package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	textmessage "golang.org/x/text/message"

	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/violation"
)

// The session scopes: a tool's contract risk tier is the scope a session
// needs to see and call it. (They are not the contract's OAuth scopes.)
const (
	ScopeRead      = string(contract.TierRead)
	ScopeWrite     = string(contract.TierWrite)
	ScopeHighRisk  = string(contract.TierHighRiskExecution)
	metaIdemKey    = "io.mcpreg/idempotencyKey"
	metaApproval   = "io.mcpreg/approval"
	maxSchemaCache = 256
)

// Scopes lists the valid session scopes.
var Scopes = []string{ScopeRead, ScopeWrite, ScopeHighRisk}

// ParseScopes checks session scopes given as words or comma lists.
func ParseScopes(in []string) ([]string, error) {
	var out []string
	for _, w := range in {
		for s := range strings.SplitSeq(w, ",") {
			s = strings.TrimSpace(s)
			if !slices.Contains(Scopes, s) {
				return nil, fmt.Errorf("scope %q: want one of %s", s, strings.Join(Scopes, ", "))
			}
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// callPolicy holds the approved version's contract and the session's
// grants: which tools the session may see and call, and how.
type callPolicy struct {
	tools    map[string]contract.Tool
	results  contract.ResultHandling
	scopes   []string
	problem  string // the contract could not be read: every call is refused
	mu       sync.Mutex
	schemas  map[string]*jsonschema.Schema // by tool hash
	keysUsed map[string]string             // idempotency key → arguments digest
}

// newCallPolicy reads the entry's normalised contract. A version without
// one is held to contract.Default: the strictest rule for every tool.
func newCallPolicy(contractJSON json.RawMessage, scopes []string) *callPolicy {
	p := &callPolicy{tools: map[string]contract.Tool{}, scopes: scopes,
		schemas: map[string]*jsonschema.Schema{}, keysUsed: map[string]string{},
		results: contract.ResultHandling{UntrustedContentFiltering: true, BoundaryMarkers: true}}
	if len(p.scopes) == 0 {
		p.scopes = []string{ScopeRead}
	}
	if len(bytes.TrimSpace(contractJSON)) == 0 || string(bytes.TrimSpace(contractJSON)) == "null" {
		return p
	}
	n, err := contract.DecodeNormalized(contractJSON)
	if err != nil {
		p.problem = "the approved contract cannot be read: " + err.Error()
		return p
	}
	for _, t := range n.Tools {
		p.tools[t.Name] = t
	}
	p.results = n.ResultHandling
	return p
}

// rule is the contract's rule for a tool (the strictest for a tool the
// contract does not name).
func (p *callPolicy) rule(name string) contract.Tool {
	if t, ok := p.tools[name]; ok {
		return t
	}
	return contract.StrictestTool(name)
}

// scopeRefusal says why the session may not see or call the tool ("" when
// it may).
func (p *callPolicy) scopeRefusal(name string) string {
	if p.problem != "" {
		return p.problem
	}
	tier := string(p.rule(name).RiskTier)
	if slices.Contains(p.scopes, tier) {
		return ""
	}
	return fmt.Sprintf("scope '%s' required but not granted (this session has %s)", tier, strings.Join(p.scopes, ", "))
}

// timeout is the tool's contract timeout.
func (p *callPolicy) timeout(name string) time.Duration {
	return time.Duration(p.rule(name).TimeoutSeconds) * time.Second
}

// callMeta are the members of a call's _meta the gate reads.
type callMeta struct {
	IdempotencyKey *string `json:"io.mcpreg/idempotencyKey"`
	Approval       *struct {
		ArgumentsDigest string `json:"argumentsDigest"`
	} `json:"io.mcpreg/approval"`
}

// checkCall applies the contract to a call of a passed tool: its
// arguments against the approved input schema, its idempotency key, its
// approval. rawTool is the tool as passed; digest is the arguments digest.
func (p *callPolicy) checkCall(name, toolHash string, rawTool, args json.RawMessage, meta callMeta, digest string) string {
	if why := p.scopeRefusal(name); why != "" {
		return why
	}
	if why := p.checkArguments(toolHash, rawTool, args); why != "" {
		return why
	}
	rule := p.rule(name)
	if rule.Idempotency == contract.RequiresKey {
		if why := p.checkKey(name, meta.IdempotencyKey, digest); why != "" {
			return why
		}
	}
	if rule.Approval.Mode == contract.ApprovalAlways || rule.Approval.Mode == contract.ApprovalConditional {
		switch {
		case meta.Approval == nil:
			return fmt.Sprintf(`tool %q requires an approval: _meta[%q] must carry {"argumentsDigest": %q}`, name, metaApproval, digest)
		case meta.Approval.ArgumentsDigest != digest:
			return fmt.Sprintf("the approval of this call of %q is for other arguments (argumentsDigest %s, this call's is %s)",
				name, meta.Approval.ArgumentsDigest, digest)
		}
	}
	return ""
}

// checkKey requires an idempotency key, and refuses one reused with other
// arguments in this session.
func (p *callPolicy) checkKey(name string, key *string, digest string) string {
	if key == nil || *key == "" {
		return fmt.Sprintf("tool %q requires an idempotency key: _meta[%q] must be a non-empty string", name, metaIdemKey)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prev, ok := p.keysUsed[*key]; ok && prev != digest {
		return fmt.Sprintf("idempotency key %q was used with other arguments", *key)
	}
	p.keysUsed[*key] = digest
	return ""
}

// english prints the schema validator's messages.
var english = textmessage.NewPrinter(language.English)

// checkArguments validates args against the tool's approved inputSchema.
func (p *callPolicy) checkArguments(toolHash string, rawTool, args json.RawMessage) string {
	sch, err := p.schema(toolHash, rawTool)
	if err != nil {
		return "the approved input schema cannot be used: " + err.Error()
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "the arguments are not JSON: " + err.Error()
	}
	err = sch.Validate(doc)
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return ""
	}
	var msgs []string
	for _, leaf := range violation.Leaves(verr) {
		msgs = append(msgs, describe(leaf))
	}
	return "the arguments do not match the approved input schema: " + strings.Join(msgs, "; ")
}

// schema compiles a passed tool's inputSchema once per tool hash. The
// compiler reads no URL: a $ref outside the schema fails.
func (p *callPolicy) schema(toolHash string, rawTool json.RawMessage) (*jsonschema.Schema, error) {
	p.mu.Lock()
	sch, ok := p.schemas[toolHash]
	p.mu.Unlock()
	if ok {
		return sch, nil
	}
	var t struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(rawTool, &t); err != nil || len(t.InputSchema) == 0 {
		return nil, errors.New("the tool has no inputSchema")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.InputSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	const loc = "mcpreg:input-schema"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	if sch, err = c.Compile(loc); err != nil {
		return nil, err
	}
	p.mu.Lock()
	if len(p.schemas) >= maxSchemaCache {
		clear(p.schemas)
	}
	p.schemas[toolHash] = sch
	p.mu.Unlock()
	return sch, nil
}

// noLoader refuses every URL: the gate reads nothing a schema points at.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the gate loads no schema from %s", url)
}

// describe names one violation: where, and what is wrong.
func describe(e *jsonschema.ValidationError) string {
	at := "arguments"
	if len(e.InstanceLocation) > 0 {
		at = "argument /" + strings.Join(e.InstanceLocation, "/")
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		names := make([]string, len(k.Missing))
		for i, n := range k.Missing {
			names[i] = fmt.Sprintf("%q", n)
		}
		return fmt.Sprintf("%s: missing required argument %s", at, strings.Join(names, ", "))
	case *kind.Enum:
		return fmt.Sprintf("%s: value not in enum (%s)", at, k.LocalizedString(english))
	case *kind.Type:
		return fmt.Sprintf("%s: wrong type: got %s, want %s", at, k.Got, strings.Join(k.Want, " or "))
	}
	return at + ": " + e.ErrorKind.LocalizedString(english)
}

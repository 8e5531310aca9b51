package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/internal/contract"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/pin"
)

// Where a version's contract came from.
const (
	ContractSubmitted      = "submitted"
	ContractServerJSONMeta = "server_json_meta"
	ContractDefault        = "default"
)

// parsedContract is a version's capability contract, read and normalised.
type parsedContract struct {
	doc        *contract.Contract
	source     string
	raw        []byte
	normalized contract.Normalized
	json       []byte
	hash       string
}

// parseContract reads the submitted contract, else the one in server.json
// _meta, else takes the default contract; it normalises it over the
// snapshot's tools.
func (s *core) parseContract(submitted, serverJSON []byte, tools *pin.ToolsList) (*parsedContract, error) {
	raw, source := submitted, ContractSubmitted
	if len(raw) == 0 {
		meta, found, err := contract.FromServerJSONMeta(serverJSON)
		if err != nil {
			return nil, contractError("serverJson _meta "+contract.MetaKey, err)
		}
		raw, source = meta, ContractServerJSONMeta
		if !found {
			raw, source = nil, ContractDefault
		}
	}
	doc := contract.Default()
	if raw != nil {
		var err error
		if doc, err = contract.Parse(raw, s.limits.Contract); err != nil {
			return nil, contractError("contract", err)
		}
	}
	names := make([]string, len(tools.Tools))
	for i, t := range tools.Tools {
		names[i] = t.Name
	}
	n := doc.Normalize(names)
	hash, err := n.Hash()
	if err != nil {
		return nil, fmt.Errorf("contract hash: %w", err)
	}
	return &parsedContract{doc: doc, source: source, raw: raw, normalized: n, json: n.JSON(), hash: hash}, nil
}

func contractError(field string, err error) error {
	if errors.Is(err, contract.ErrTooLarge) {
		return fmt.Errorf("%w: %s: %w", ErrTooLarge, field, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrInvalid, field, err)
}

// contractFindings are the submission checks of a contract.
func (s *core) contractFindings(pc *parsedContract, tools *pin.ToolsList) []recorded {
	facts := make([]contract.ToolFacts, len(tools.Tools))
	for i, t := range tools.Tools {
		facts[i] = contract.ToolFacts{Name: t.Name, Raw: t.Raw}
	}
	var out []recorded
	for _, f := range contract.Check(pc.doc, facts, contract.CheckOptions{MaxTokenTTL: s.limits.ContractMaxTokenTTL}) {
		out = append(out, recorded{Finding: f, Source: SourceContract})
	}
	return out
}

// baseStates are the states of a version that was approved and is not
// revoked: quarantine is entered from approved only.
var baseStates = []version.State{version.StateApproved, version.StateQuarantined}

// baseVersion is the version another is reviewed against, one rule for
// the contract widenings approval must acknowledge and for the version
// comparison reviewers read: the highest version of the server below ver
// that was approved and is not revoked, other than exclude; nil when there
// is none.
func baseVersion(ctx context.Context, client *ent.Client, serverID, exclude int, ver string) (*ent.Version, error) {
	// Filter the state here, not in SQL: without statistics SQLite would
	// walk the state index (every approved version of the fleet) instead
	// of this server's few versions.
	vs, err := client.Version.Query().Where(version.ServerID(serverID)).
		Select(version.FieldID, version.FieldVersion, version.FieldState, version.FieldContract, version.FieldPinRevision).All(ctx)
	if err != nil {
		return nil, err
	}
	return pickBase(vs, exclude, ver), nil
}

// pickBase is baseVersion over the versions of one server.
func pickBase(vs []*ent.Version, exclude int, ver string) *ent.Version {
	var best *ent.Version
	for _, v := range vs {
		if v.ID == exclude || !slices.Contains(baseStates, v.State) || !higherVersion(ver, v.Version) {
			continue
		}
		if best == nil || higherVersion(v.Version, best.Version) {
			best = v
		}
	}
	return best
}

// widenings compares a version's contract with its base's (baseVersion).
func widenings(ctx context.Context, tx *ent.Tx, serverID, versionID int, ver string, next contract.Normalized) ([]contract.Widening, string, error) {
	base, err := baseVersion(ctx, tx.Client(), serverID, versionID, ver)
	if err != nil || base == nil {
		return nil, "", err
	}
	prev, err := contract.DecodeNormalized(base.Contract)
	if err != nil {
		return nil, "", fmt.Errorf("stored contract of %s: %w", base.Version, err)
	}
	return contract.Widenings(prev, next), base.Version, nil
}

func wideningRecords(ws []contract.Widening, against string) []recorded {
	out := make([]recorded, len(ws))
	for i, w := range ws {
		f := w.Finding
		f.Message = fmt.Sprintf("%s (compared with approved version %s)", f.Message, against)
		out[i] = recorded{Finding: f, Source: SourceContract, WideningID: w.ID}
	}
	return out
}

// checkAcknowledged refuses approval (and release, and accepting drift)
// while any widening against the base version is not acknowledged; it returns the
// acknowledged ids for the audit event.
func checkAcknowledged(ctx context.Context, tx *ent.Tx, v *ent.Version, a Action, subject string, acks []string) ([]string, error) {
	next, err := contract.DecodeNormalized(v.Contract)
	if err != nil {
		return nil, fmt.Errorf("stored contract of %s: %w", subject, err)
	}
	ws, prevVersion, err := widenings(ctx, tx, v.ServerID, v.ID, v.Version, next)
	if err != nil {
		return nil, err
	}
	missing := contract.Unacknowledged(ws, acks)
	if len(missing) > 0 {
		ids := make([]string, len(missing))
		for i, w := range missing {
			ids[i] = w.ID
		}
		return nil, fmt.Errorf("%w: cannot %s %s: it widens the capability contract of approved version %s; acknowledge each widening (--ack): %s",
			ErrFailedPrecondition, a, subject, prevVersion, strings.Join(ids, ", "))
	}
	acked := make([]string, len(ws))
	for i, w := range ws {
		acked[i] = w.ID
	}
	return acked, nil
}

package registry

import (
	"context"
	"errors"
	"fmt"
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

// previousApproved returns the contract of the server's highest approved
// version other than exclude, or false when there is none.
func previousApproved(ctx context.Context, tx *ent.Tx, serverID, exclude int) (contract.Normalized, string, bool, error) {
	// Filter the state here, not in SQL: without statistics SQLite would
	// walk the state index (every approved version of the fleet) instead
	// of this server's few versions.
	vs, err := tx.Version.Query().Where(version.ServerID(serverID)).
		Select(version.FieldID, version.FieldVersion, version.FieldState, version.FieldContract).All(ctx)
	if err != nil {
		return contract.Normalized{}, "", false, err
	}
	var best *ent.Version
	for _, v := range vs {
		if v.State == version.StateApproved && v.ID != exclude && (best == nil || higherVersion(v.Version, best.Version)) {
			best = v
		}
	}
	if best == nil {
		return contract.Normalized{}, "", false, nil
	}
	n, err := contract.DecodeNormalized(best.Contract)
	if err != nil {
		return contract.Normalized{}, "", false, fmt.Errorf("stored contract of %s: %w", best.Version, err)
	}
	return n, best.Version, true, nil
}

// widenings compares a version's contract with the previous approved one.
func widenings(ctx context.Context, tx *ent.Tx, serverID, versionID int, next contract.Normalized) ([]contract.Widening, string, error) {
	prev, prevVersion, ok, err := previousApproved(ctx, tx, serverID, versionID)
	if err != nil || !ok {
		return nil, "", err
	}
	return contract.Widenings(prev, next), prevVersion, nil
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

// checkAcknowledged refuses approval (and release, and accepting drift) while any widening against the
// previous approved version is not acknowledged; it returns the
// acknowledged ids for the audit event.
func checkAcknowledged(ctx context.Context, tx *ent.Tx, v *ent.Version, a Action, subject string, acks []string) ([]string, error) {
	next, err := contract.DecodeNormalized(v.Contract)
	if err != nil {
		return nil, fmt.Errorf("stored contract of %s: %w", subject, err)
	}
	ws, prevVersion, err := widenings(ctx, tx, v.ServerID, v.ID, next)
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

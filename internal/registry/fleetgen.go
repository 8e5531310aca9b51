package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/version"
	"github.com/mcpreg/mcpreg/pin"
)

// FleetSpec describes a synthetic fleet for scale measurements: Servers
// servers in Servers/20 namespaces, 1 to 4 versions each (2.5 on
// average), ApprovedShare of the versions approved (the others pending,
// a few rejected), 1 to 6 tools per version with varied descriptions.
// The same Seed gives the same fleet.
type FleetSpec struct {
	Servers       int
	ApprovedShare float64
	Seed          uint64
	// Owner submits every version, Reviewer approves (four-eyes holds).
	Owner, Reviewer string
	// Progress, when set, is told how many servers are stored so far.
	Progress func(servers int)
}

// FleetStats says what GenerateFleet stored.
type FleetStats struct {
	Servers, Versions, Approved, Pending, Rejected, AuditEvents int
}

// fleetBatch is the servers stored per transaction.
const fleetBatch = 200

// FleetServerName is the name of server i of a generated fleet.
func FleetServerName(i int) string {
	return fmt.Sprintf("io.github.fleet%04d/server-%06d", i/20, i)
}

// FleetServerJSON is the server.json of server i at version ver: a
// streamable-http remote for odd i, an npm package for even i.
func FleetServerJSON(i int, ver string) []byte {
	name := FleetServerName(i)
	doc := map[string]any{"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
		"name": name, "description": fleetWords(uint64(i), 6), "version": ver}
	if i%2 == 1 {
		doc["remotes"] = []any{map[string]any{"type": "streamable-http", "url": fmt.Sprintf("https://mcp%d.fleet.example/mcp", i)}}
	} else {
		doc["packages"] = []any{map[string]any{"registryType": "npm", "identifier": fmt.Sprintf("@fleet%d/server-%d", i/20, i),
			"version": ver, "transport": map[string]any{"type": "stdio"}}}
	}
	b, _ := json.Marshal(doc)
	return b
}

var fleetVocabulary = strings.Fields(`read write list search fetch create update delete send get forecast weather
	issue ticket file folder repository branch commit message channel user account invoice payment order
	calendar event note document page record table query report metric alert log trace deployment cluster
	the a for of in from with by to project team customer product catalog price stock map route`)

func fleetWords(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w := make([]string, n)
	for i := range w {
		w[i] = fleetVocabulary[r.IntN(len(fleetVocabulary))]
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// GenerateFleet seeds a synthetic fleet straight into the store, the way
// submissions and approvals store it (snapshots, tools, pins, decisions)
// with one audit event per submission and decision, so the audit chain
// verifies. It refuses a database that holds any server: it is for
// measurement databases only, never an mcpregd command.
func (s *Review) GenerateFleet(ctx context.Context, spec FleetSpec) (FleetStats, error) {
	var st FleetStats
	if spec.Servers < 1 || spec.ApprovedShare < 0 || spec.ApprovedShare > 1 || spec.Owner == "" || spec.Reviewer == "" || spec.Owner == spec.Reviewer {
		return st, invalidf("fleet: want servers >= 1, an approved share in [0,1] and distinct owner and reviewer")
	}
	if n, err := s.store.Client.Server.Query().Count(ctx); err != nil {
		return st, err
	} else if n > 0 {
		return st, fmt.Errorf("%w: the database holds %d servers: the fleet generator fills empty databases only", ErrFailedPrecondition, n)
	}
	r := rand.New(rand.NewPCG(spec.Seed, spec.Seed+1))
	for start := 0; start < spec.Servers; start += fleetBatch {
		err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
			for i := start; i < min(start+fleetBatch, spec.Servers); i++ {
				if err := s.generateServer(ctx, tx, spec, r, i, &st); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return st, err
		}
		if spec.Progress != nil {
			spec.Progress(min(start+fleetBatch, spec.Servers))
		}
	}
	return st, nil
}

func (s *Review) generateServer(ctx context.Context, tx *ent.Tx, spec FleetSpec, r *rand.Rand, i int, st *FleetStats) error {
	name := FleetServerName(i)
	ns, _, _ := strings.Cut(name, "/")
	now := s.now()
	versions := 1 + i%4
	srv, err := tx.Server.Create().SetName(name).SetNameFolded(strings.ToLower(name)).SetNamespace(ns).SetOwner(spec.Owner).SetDescription(fleetWords(uint64(i), 6)).
		SetLatestVersion(fmt.Sprintf("1.%d.0", versions-1)).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return err
	}
	st.Servers++
	owner := &Caller{Principal: spec.Owner, Role: RoleOwner}
	for k := range versions {
		ver := fmt.Sprintf("1.%d.0", k)
		tl, err := fleetTools(uint64(i)*8+uint64(k), 1+(i+k)%6)
		if err != nil {
			return err
		}
		pins, err := computePins(pin.SpecVersionV2, tl)
		if err != nil {
			return err
		}
		raw := FleetServerJSON(i, ver)
		v, err := tx.Version.Create().SetServerID(srv.ID).SetVersion(ver).SetServerJSON(raw).SetDescription(fleetWords(uint64(i), 6)).
			SetSubmittedBy(owner.Principal).SetSubmittedAt(now).SetStateChangedAt(now).SetPinRevision(1).Save(ctx)
		if err != nil {
			return err
		}
		snap, err := s.createSnapshot(ctx, tx, v.ID, "submission", tl, &InitializeFacts{ProtocolVersion: "2025-11-25"}, pins)
		if err != nil {
			return err
		}
		if err := s.createPinRevision(ctx, tx, v.ID, 1, snap.ID, pins, "", owner.Principal, "submission"); err != nil {
			return err
		}
		subject := subjectOf(name, ver)
		err = s.appendAudit(ctx, tx, AuditRecord{Actor: owner.Principal, Action: "version.submit", Subject: subject, After: "pending_review",
			Details: fmt.Sprintf("toolDefinitionHash=%s tools=%d fleet=generated", pins.ToolDefinitionHash, len(tl.Tools))})
		if err != nil {
			return err
		}
		st.Versions++
		st.AuditEvents++
		to, action := version.StatePendingReview, ""
		switch x := r.Float64(); {
		case x < spec.ApprovedShare:
			to, action = version.StateApproved, string(ActionApprove)
		case x < spec.ApprovedShare+(1-spec.ApprovedShare)/10:
			to, action = version.StateRejected, string(ActionReject)
		}
		if action == "" {
			st.Pending++
			continue
		}
		if err := tx.Version.UpdateOneID(v.ID).SetState(to).SetStateReason("generated fleet").SetStateChangedAt(now).Exec(ctx); err != nil {
			return err
		}
		err = tx.ReviewDecision.Create().SetVersionID(v.ID).SetAction(action).SetFromState(string(version.StatePendingReview)).
			SetToState(string(to)).SetActor(spec.Reviewer).SetReason("generated fleet").SetCreatedAt(now).Exec(ctx)
		if err != nil {
			return err
		}
		err = s.appendAudit(ctx, tx, AuditRecord{Actor: spec.Reviewer, Action: "version." + action, Subject: subject,
			Before: string(version.StatePendingReview), After: string(to), Reason: "generated fleet"})
		if err != nil {
			return err
		}
		st.AuditEvents++
		if to == version.StateApproved {
			st.Approved++
		} else {
			st.Rejected++
		}
	}
	return nil
}

// fleetTools are n tools with names and descriptions of their own.
func fleetTools(seed uint64, n int) (*pin.ToolsList, error) {
	tools := make([]map[string]any, n)
	for j := range tools {
		tools[j] = map[string]any{"name": fmt.Sprintf("tool_%d_%d", seed%997, j), "description": fleetWords(seed*31+uint64(j), 12),
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string",
				"description": fleetWords(seed*17+uint64(j), 5)}}}}
	}
	b, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		return nil, err
	}
	return pin.ParseToolsList(b, pin.DefaultLimits())
}

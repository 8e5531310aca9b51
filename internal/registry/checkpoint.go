package registry

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpreg/mcpreg/internal/auditchain"
	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/internal/ent/auditcheckpoint"
	"github.com/mcpreg/mcpreg/internal/ent/audithead"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
	"github.com/mcpreg/mcpreg/signing"
)

// Checkpoint defaults.
const (
	DefaultCheckpointEvery    = 1000
	DefaultCheckpointInterval = 10 * time.Minute
	// maxCheckpointsPerRound bounds the catch-up of one round (a long log
	// seeing checkpoints for the first time).
	maxCheckpointsPerRound = 100
)

// Checkpoints says when the registry signs audit checkpoints. They are
// signed with the discovery key (WithDiscoverySigner); without one, none
// are written.
type Checkpoints struct {
	// Every writes a checkpoint at every multiple of Every events; 0: none
	// by count.
	Every int64
	// Interval writes a checkpoint at the chain's head when the latest one
	// is this old and the chain has grown since; 0: none by time.
	Interval time.Duration
	// Origin names the log in the notes. Empty: the latest checkpoint's
	// origin, or DefaultOrigin for the first.
	Origin string
}

// WithCheckpoints turns signed audit checkpoints on.
func WithCheckpoints(c Checkpoints) Option { return func(s *settings) { s.checkpoints = &c } }

// DefaultOrigin names a registry's log when no origin is configured: the
// key id of the key that signs its first checkpoint. Later checkpoints keep
// the origin of the latest one, so a key rotation does not rename the log.
func DefaultOrigin(k *signing.Key) string {
	return "mcpreg-audit/" + strings.TrimPrefix(k.ID, signing.Algorithm+":")
}

// checkpointSigner is the key checkpoints are signed with, nil when off.
func (s *Audit) checkpointSigner() *signing.Key {
	if s.checkpoints == nil || s.signer == nil || (s.checkpoints.Every <= 0 && s.checkpoints.Interval <= 0) {
		return nil
	}
	return s.signer.Keys.Current
}

// CheckpointKeys are the public keys a checkpoint of this registry may be
// signed with: the current discovery key and every previous one configured
// (retired keys still verify the checkpoints they signed).
func (s *Audit) CheckpointKeys() []ed25519.PublicKey {
	if s.signer == nil {
		return nil
	}
	keys := []ed25519.PublicKey{s.signer.Keys.Current.Public()}
	for _, p := range s.signer.Keys.Previous {
		if pub, err := signing.ParsePublicKey([]byte(p.PublicKeyPEM)); err == nil {
			keys = append(keys, pub)
		}
	}
	return keys
}

// RunCheckpoints writes due checkpoints until ctx ends, polling a tenth of
// the interval (between 1s and 10s). Failures are logged and retried:
// a chain that does not link to the latest checkpoint is never signed.
func (s *Audit) RunCheckpoints(ctx context.Context) error {
	if s.checkpointSigner() == nil {
		return nil
	}
	poll := 10 * time.Second
	if iv := s.checkpoints.Interval; iv > 0 {
		poll = min(max(iv/10, time.Second), poll)
	}
	for {
		if _, err := s.WriteCheckpoints(ctx); err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "audit checkpoint", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(poll):
		}
	}
}

// pendingCheckpoint is one checkpoint to write.
type pendingCheckpoint struct {
	length int64
	head   string
	byTime bool
}

// WriteCheckpoints signs and stores the checkpoints due now and returns how
// many this call stored. Replicas may call it at once: the length is
// unique, and a time checkpoint is only written when no other replica
// wrote one since this call looked. Before signing it replays the chain
// from the latest checkpoint (whose note it verifies) to the new length.
func (s *Audit) WriteCheckpoints(ctx context.Context) (int, error) {
	key := s.checkpointSigner()
	if key == nil {
		return 0, nil
	}
	base, err := s.latestVerifiedCheckpoint(ctx)
	if err != nil {
		return 0, err
	}
	head, err := s.store.Client.AuditHead.Query().Where(audithead.ID(auditHeadID)).Only(ctx)
	if err != nil {
		return 0, fmt.Errorf("audit checkpoint: head: %w", err)
	}
	due := s.dueCheckpoints(base, head.Seq)
	if len(due) == 0 {
		return 0, nil
	}
	if err := s.replayTo(ctx, base, due); err != nil {
		return 0, err
	}
	return s.storeCheckpoints(ctx, key, base, due)
}

// latestVerifiedCheckpoint is the latest stored checkpoint, its note
// verified with the registry's keys; a zero checkpoint at the genesis when
// there is none.
func (s *Audit) latestVerifiedCheckpoint(ctx context.Context) (*auditchain.Checkpoint, error) {
	seen := s.seenCheckpoint.Load()
	row, err := s.store.Client.AuditCheckpoint.Query().Order(ent.Desc(auditcheckpoint.FieldLength)).First(ctx)
	switch {
	case ent.IsNotFound(err) && seen == nil:
		return &auditchain.Checkpoint{Head: auditchain.Genesis}, nil
	case seen != nil && (ent.IsNotFound(err) || (err == nil && row.Length < seen.Length)):
		return nil, fmt.Errorf("audit checkpoint: this replica saw a checkpoint at %d, which is gone from the database "+
			"(refusing to sign: checkpoints were deleted)", seen.Length)
	case err != nil:
		return nil, fmt.Errorf("audit checkpoint: latest: %w", err)
	}
	cp, _, err := auditchain.Open([]byte(row.Note), s.CheckpointKeys())
	if err != nil {
		return nil, fmt.Errorf("audit checkpoint: the stored checkpoint at %d does not verify with this registry's keys "+
			"(refusing to sign more; was --discovery-previous-key dropped?): %w", row.Length, err)
	}
	if cp.Length != row.Length || cp.Head != row.HeadHash {
		return nil, fmt.Errorf("audit checkpoint: the row of the checkpoint at %d disagrees with its signed note", row.Length)
	}
	s.noteSeen(cp)
	return cp, nil
}

// dueCheckpoints lists the checkpoints due after base with the chain at
// length n: every multiple of Every, and the head when base is older than
// Interval.
func (s *Audit) dueCheckpoints(base *auditchain.Checkpoint, n int64) []pendingCheckpoint {
	if n <= base.Length {
		return nil
	}
	var due []pendingCheckpoint
	if every := s.checkpoints.Every; every > 0 {
		for l := (base.Length/every + 1) * every; l <= n && len(due) < maxCheckpointsPerRound; l += every {
			due = append(due, pendingCheckpoint{length: l})
		}
	}
	iv := s.checkpoints.Interval
	if iv > 0 && !s.now().Before(base.Time.Add(iv)) && (len(due) == 0 || due[len(due)-1].length < n) && len(due) < maxCheckpointsPerRound {
		due = append(due, pendingCheckpoint{length: n, byTime: true})
	}
	return due
}

// replayTo recomputes the chain from base to the last due length and
// fills in the head hash at each; any break is an error.
func (s *Audit) replayTo(ctx context.Context, base *auditchain.Checkpoint, due []pendingCheckpoint) error {
	chain := auditchain.ResumeChain(base.Length, base.Head)
	last, i := due[len(due)-1].length, 0
	errDone := errors.New("done")
	err := s.walkAudit(ctx, base.Length, func(ev *ent.AuditEvent) error {
		if err := chain.Add(entryOf(ev), ev.PrevHash, ev.Hash); err != nil {
			return err
		}
		for i < len(due) && due[i].length == ev.Seq {
			due[i].head = ev.Hash
			i++
		}
		if ev.Seq >= last {
			return errDone
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDone) {
		return fmt.Errorf("audit checkpoint: the chain after the checkpoint at %d does not hold, refusing to sign: %w", base.Length, err)
	}
	if i < len(due) {
		return fmt.Errorf("audit checkpoint: the chain ends at event %d, before %d", chain.Len(), due[i].length)
	}
	return nil
}

// storeCheckpoints signs and inserts due under the audit head lock, so a
// time checkpoint is skipped when another replica wrote one since base.
func (s *Audit) storeCheckpoints(ctx context.Context, key *signing.Key, base *auditchain.Checkpoint, due []pendingCheckpoint) (int, error) {
	var written int
	var top *pendingCheckpoint // the last one now in the table
	err := s.store.WithTx(ctx, func(tx *ent.Tx) error {
		written, top = 0, nil
		q := tx.AuditHead.Query().Where(audithead.ID(auditHeadID))
		if s.store.RowLocks() {
			q = q.ForUpdate()
		}
		if _, err := q.Only(ctx); err != nil {
			return fmt.Errorf("audit checkpoint: lock head: %w", err)
		}
		var latest int64
		row, err := tx.AuditCheckpoint.Query().Order(ent.Desc(auditcheckpoint.FieldLength)).First(ctx)
		switch {
		case err == nil:
			latest = row.Length
		case !ent.IsNotFound(err):
			return fmt.Errorf("audit checkpoint: latest: %w", err)
		}
		origin, err := s.checkpointOrigin(ctx, tx, key)
		if err != nil {
			return err
		}
		for _, p := range due {
			if p.byTime && latest != base.Length {
				continue // another replica wrote a checkpoint since base
			}
			n, err := s.insertCheckpoint(ctx, tx, key, origin, p)
			if err != nil {
				return err
			}
			written, top = written+n, &p
		}
		return nil
	})
	if err == nil && top != nil {
		s.noteSeen(&auditchain.Checkpoint{Length: top.length, Head: top.head})
	}
	return written, err
}

// noteSeen remembers cp as the latest checkpoint in the database unless a
// later one was seen.
func (s *Audit) noteSeen(cp *auditchain.Checkpoint) {
	for {
		old := s.seenCheckpoint.Load()
		if (old != nil && old.Length >= cp.Length) || s.seenCheckpoint.CompareAndSwap(old, cp) {
			return
		}
	}
}

func (s *Audit) insertCheckpoint(ctx context.Context, tx *ent.Tx, key *signing.Key, origin string, p pendingCheckpoint) (int, error) {
	cp := &auditchain.Checkpoint{Origin: origin, Length: p.length, Head: p.head, Time: s.now()}
	note, err := auditchain.Sign(cp, key)
	if err != nil {
		return 0, fmt.Errorf("audit checkpoint %d: %w", p.length, err)
	}
	err = tx.AuditCheckpoint.Create().SetLength(p.length).SetHeadHash(p.head).SetOrigin(origin).SetKeyID(key.ID).
		SetNote(string(note)).SetCreatedAt(cp.Time).OnConflictColumns(auditcheckpoint.FieldLength).DoNothing().Exec(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil // the unique length: another replica wrote this boundary
	}
	if err != nil {
		return 0, fmt.Errorf("audit checkpoint %d: %w", p.length, err)
	}
	// Another replica may have written this boundary first: then the row
	// holds its note, not ours.
	ours, err := tx.AuditCheckpoint.Query().Where(auditcheckpoint.Length(p.length), auditcheckpoint.Note(string(note))).Exist(ctx)
	if err != nil || !ours {
		return 0, err
	}
	return 1, nil
}

// checkpointOrigin is the configured origin, else the latest checkpoint's,
// else DefaultOrigin of the signing key.
func (s *Audit) checkpointOrigin(ctx context.Context, tx *ent.Tx, key *signing.Key) (string, error) {
	if o := s.checkpoints.Origin; o != "" {
		return o, nil
	}
	row, err := tx.AuditCheckpoint.Query().Order(ent.Desc(auditcheckpoint.FieldLength)).First(ctx)
	switch {
	case ent.IsNotFound(err):
		return DefaultOrigin(key), nil
	case err != nil:
		return "", fmt.Errorf("audit checkpoint: origin: %w", err)
	}
	return row.Origin, nil
}

// ListCheckpoints lists the stored checkpoints, newest first.
func (s *Audit) ListCheckpoints(ctx context.Context, pg Page) ([]*mcpregv1.AuditCheckpoint, string, error) {
	size, before, err := s.intPageArgs(pg, "checkpoint")
	if err != nil {
		return nil, "", err
	}
	q := s.store.Client.AuditCheckpoint.Query()
	if before > 0 {
		q = q.Where(auditcheckpoint.LengthLT(before))
	}
	rows, err := q.Order(ent.Desc(auditcheckpoint.FieldLength)).Limit(size + 1).All(ctx)
	if err != nil {
		return nil, "", err
	}
	rows, next := trimPage(rows, size, func(c *ent.AuditCheckpoint) string {
		return encodeCursor("checkpoint", strconv.FormatInt(c.Length, 10))
	})
	out := make([]*mcpregv1.AuditCheckpoint, len(rows))
	for i, c := range rows {
		out[i] = &mcpregv1.AuditCheckpoint{Length: c.Length, HeadHash: c.HeadHash, Origin: c.Origin, KeyId: c.KeyID,
			CreatedAt: ts(c.CreatedAt), Note: c.Note}
	}
	return out, next, nil
}

// LatestCheckpoint is the signed note of the latest checkpoint; NotFound
// when there is none yet.
func (s *Audit) LatestCheckpoint(ctx context.Context) ([]byte, error) {
	row, err := s.store.Client.AuditCheckpoint.Query().Order(ent.Desc(auditcheckpoint.FieldLength)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, fmt.Errorf("%w: no audit checkpoint has been signed yet", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("audit checkpoint: latest: %w", err)
	}
	return []byte(row.Note), nil
}

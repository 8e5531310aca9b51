package cli

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/hostclient"
	"github.com/mcpreg/mcpreg/internal/auditchain"
	mcpregv1 "github.com/mcpreg/mcpreg/proto/mcpreg/v1"
)

// verifyPageSize is the page size of the local replay (the service caps
// it at its own maximum).
const verifyPageSize = 1000

// verifyLocally reads every audit event through the API and recomputes the
// chain here, against the checkpoint: nothing the service says about the
// chain is trusted, only the events it serves.
func (g *globals) verifyLocally(ctx context.Context, c *client.Client, checkpoint string, keyFiles []string) error {
	if err := checkStdin(append([]string{checkpoint}, keyFiles...)...); err != nil {
		return err
	}
	keys, err := g.checkpointKeys(ctx, c, keyFiles)
	if err != nil {
		return err
	}
	note, err := g.readInput("--checkpoint", checkpoint)
	if err != nil {
		return err
	}
	cp, keyID, err := auditchain.Open(note, keys)
	if err != nil {
		return fmt.Errorf("--checkpoint %s: %w", checkpoint, err)
	}
	chain := auditchain.NewChain(cp)
	if err := replayEvents(ctx, c, chain); err != nil {
		return fmt.Errorf("%w: %w", ErrChainBroken, err)
	}
	if err := chain.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrChainBroken, err)
	}
	w := g.io.Out
	fmt.Fprintf(w, "audit chain ok (recomputed here): %d events, head %s\n", chain.Len(), chain.Head())
	fmt.Fprintf(w, "checkpoint ok: %s, %d events at %s, head %s, signed by %s\n", cp.Origin, cp.Length,
		cp.Time.Format("2006-01-02T15:04:05Z07:00"), cp.Head, keyID)
	return nil
}

// replayEvents feeds every event, page by page, to chain.
func replayEvents(ctx context.Context, c *client.Client, chain *auditchain.Chain) error {
	req := &mcpregv1.ListAuditEventsRequest{PageSize: verifyPageSize}
	seen := map[string]bool{}
	for {
		resp, err := c.ListAuditEvents(ctx, req)
		if err != nil {
			return fmt.Errorf("reading audit events after event %d: %w", chain.Len(), err)
		}
		for _, e := range resp.GetEvents() {
			if err := chain.Add(entryOf(e), e.GetPrevHash(), e.GetHash()); err != nil {
				return err
			}
		}
		next := resp.GetNextPageToken()
		if next == "" {
			return nil
		}
		if seen[next] {
			return fmt.Errorf("the service returned page token %q twice", next)
		}
		seen[next], req.PageToken = true, next
	}
}

func entryOf(e *mcpregv1.AuditEvent) auditchain.Entry {
	return auditchain.Entry{Seq: e.GetSeq(), OccurredAt: auditchain.FormatTime(e.GetOccurredAt().AsTime()), Actor: e.GetActor(),
		Action: e.GetAction(), Subject: e.GetSubject(), Before: e.GetBefore(), After: e.GetAfter(), Reason: e.GetReason(),
		RequestID: e.GetRequestId(), Details: e.GetDetails()}
}

// checkpointKeys reads the --key files; without any it trusts the keys the
// registry publishes and says so.
func (g *globals) checkpointKeys(ctx context.Context, c *client.Client, files []string) ([]ed25519.PublicKey, error) {
	if len(files) == 0 {
		published, err := c.DiscoveryKeys(ctx)
		if err != nil {
			return nil, fmt.Errorf("fetching the registry's published keys: %w", err)
		}
		var pems [][]byte
		for _, p := range published {
			pems = append(pems, []byte(p.PublicKeyPEM))
		}
		keys, err := hostclient.TrustedKeys(pems...)
		if err != nil {
			return nil, fmt.Errorf("the registry's published keys: %w", err)
		}
		g.warnPublishedKeys(keys, "events")
		return slices.Collect(maps.Values(keys)), nil
	}
	keys, err := g.keysFromFiles(files)
	if err != nil {
		return nil, err
	}
	return slices.Collect(maps.Values(keys)), nil
}

var errKeyWithoutCheckpoint = errors.New("--key applies with --checkpoint")

func newAuditCheckpointsCmd(g *globals) *cobra.Command {
	var page pageFlags
	var latest bool
	cmd := &cobra.Command{
		Use:   "checkpoints [--latest]",
		Short: "List the signed audit checkpoints, newest first; --latest prints the latest note to keep",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := page.check(); err != nil {
				return err
			}
			return g.run(cmd, func(ctx context.Context, c *client.Client) error {
				if latest {
					note, err := c.LatestAuditCheckpoint(ctx)
					if err == nil {
						_, err = g.io.Out.Write(note)
					}
					return err
				}
				cps, next, err := collect(&page, func(token string) ([]*mcpregv1.AuditCheckpoint, string, error) {
					resp, err := c.ListAuditCheckpoints(ctx, &mcpregv1.ListAuditCheckpointsRequest{PageSize: page.size, PageToken: token})
					return resp.GetCheckpoints(), resp.GetNextPageToken(), err
				})
				if err != nil {
					return err
				}
				g.moreHint(next)
				resp := &mcpregv1.ListAuditCheckpointsResponse{Checkpoints: cps, NextPageToken: next}
				return g.emit(resp, func(w io.Writer) error { return printCheckpoints(w, cps) })
			})
		},
	}
	cmd.Flags().BoolVar(&latest, "latest", false, "print the latest signed note as served at "+client.AuditCheckpointPath)
	page.register(cmd)
	return cmd
}

func printCheckpoints(w io.Writer, cps []*mcpregv1.AuditCheckpoint) error {
	t := newTable(w)
	t.row("LENGTH", "SIGNED", "ORIGIN", "KEY", "HEAD")
	for _, c := range cps {
		t.row(strconv.FormatInt(c.GetLength(), 10), timestamp(c.GetCreatedAt()), cell(c.GetOrigin()), cell(c.GetKeyId()), cell(c.GetHeadHash()))
	}
	return t.flush()
}

package cli

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpreg/mcpreg/hostclient"
)

// stateFileName is the default sequence state file under the user's
// configuration directory.
const stateFileName = "mcpreg/discovery-state.json"

// trustFlags say which keys to trust and where the accepted sequences live.
type trustFlags struct {
	keys  []string
	state string
}

func (t *trustFlags) register(f *pflag.FlagSet) {
	f.StringArrayVar(&t.keys, "key", nil, "PEM public key the documents must be signed with (repeatable; default: the registry's published keys, with a warning)")
	f.StringVar(&t.state, "state", "", "file of the last accepted sequence per registry (default: <user config dir>/"+stateFileName+
		"); mcpreg gate keeps the verified discovery documents beside it, in FILE.cache, for use while the registry is unreachable")
}

// hostClient returns a host client for the configured registry whose
// requests each end within --timeout.
func (g *globals) hostClient() (*hostclient.Client, error) {
	if g.token == "" {
		return nil, errNoToken
	}
	hc := &http.Client{Timeout: g.timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &hostclient.Client{BaseURL: g.server, Token: g.token, HTTP: hc}, nil
}

// trust fills c's keys and sequence store from the flags. Without --key it
// trusts the registry's published keys and says so on stderr.
func (g *globals) trust(ctx context.Context, c *hostclient.Client, t trustFlags) error {
	keys, err := g.trustedKeys(ctx, c, t.keys)
	if err != nil {
		return err
	}
	path, err := t.statePath()
	if err != nil {
		return err
	}
	c.Keys, c.State = keys, hostclient.NewFileStore(path)
	return nil
}

// statePath is --state, or the default state file.
func (t trustFlags) statePath() (string, error) {
	if t.state != "" {
		return t.state, nil
	}
	return defaultStatePath()
}

// cacheDocuments has c keep every verified document in the cache beside
// the state file (hostclient.CacheDirFor), for ResolveCached, and warn on
// stderr when one cannot be kept.
func (g *globals) cacheDocuments(c *hostclient.Client, t trustFlags) error {
	path, err := t.statePath()
	if err != nil {
		return err
	}
	c.Cache = hostclient.NewFileCache(hostclient.CacheDirFor(path))
	c.OnCacheError = func(err error) { fmt.Fprintln(g.io.Err, "warning:", err) }
	return nil
}

func (g *globals) trustedKeys(ctx context.Context, c *hostclient.Client, files []string) (map[string]ed25519.PublicKey, error) {
	if len(files) == 0 {
		keys, err := c.FetchKeys(ctx)
		if err != nil {
			return nil, fmt.Errorf("fetching the registry's published keys: %w", err)
		}
		g.warnPublishedKeys(keys, "documents")
		return keys, nil
	}
	return g.keysFromFiles(files)
}

// warnPublishedKeys says that keys fetched from the registry itself are
// trusted for lack of --key, and which.
func (g *globals) warnPublishedKeys(keys map[string]ed25519.PublicKey, what string) {
	fmt.Fprintf(g.io.Err, "warning: no --key: trusting the key(s) %s that %s publishes, fetched over the same connection "+
		"as the %s; pin the registry's key with --key\n", strings.Join(slices.Sorted(maps.Keys(keys)), ", "), g.server, what)
}

// keysFromFiles reads the registry's public keys from --key files.
func (g *globals) keysFromFiles(files []string) (map[string]ed25519.PublicKey, error) {
	var pems [][]byte
	for _, f := range files {
		data, err := g.readInput("--key", f)
		if err != nil {
			return nil, err
		}
		pems = append(pems, data)
	}
	keys, err := hostclient.TrustedKeys(pems...)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	return keys, nil
}

func defaultStatePath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no --state and no configuration directory: %w", err)
	}
	return filepath.Join(dir, stateFileName), nil
}

// verificationFailure explains a failed resolve in terms of what to do.
func verificationFailure(err error) error {
	switch {
	case errors.Is(err, hostclient.ErrUnreachable): // says what failed, twice
		return err
	case errors.Is(err, hostclient.ErrSignature):
		return fmt.Errorf("verification failed: %w (is --key the registry's current key?)", err)
	case errors.Is(err, hostclient.ErrRollback):
		return fmt.Errorf("verification failed: %w (someone may be replaying an old allowlist; --state names the file)", err)
	case errors.Is(err, hostclient.ErrExpired), errors.Is(err, hostclient.ErrNotYetValid), errors.Is(err, hostclient.ErrDocument):
		return fmt.Errorf("verification failed: %w", err)
	}
	return err
}

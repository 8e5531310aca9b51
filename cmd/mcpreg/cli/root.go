package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/client"
	"github.com/mcpreg/mcpreg/internal/buildinfo"
)

// Environment variables the CLI reads; flags win over them.
const (
	EnvServer = "MCPREG_SERVER"
	EnvToken  = "MCPREG_TOKEN"
)

// DefaultServer is the service URL used when neither --server nor
// MCPREG_SERVER is set.
const DefaultServer = "http://127.0.0.1:8080"

// userAgent identifies the CLI to the service.
const userAgent = "mcpreg-cli"

// Streams are the CLI's connections to the outside world. Nil fields mean
// the process's own (os.Stdin, os.Stdout, os.Stderr, os.LookupEnv).
type Streams struct {
	In        io.Reader
	Out       io.Writer
	Err       io.Writer
	LookupEnv func(key string) (string, bool)
	// Environ is the whole environment (os.Environ by default): what
	// mcpreg gate passes on to the server it starts.
	Environ func() []string
}

func (s Streams) withDefaults() Streams {
	if s.In == nil {
		s.In = os.Stdin
	}
	if s.Out == nil {
		s.Out = os.Stdout
	}
	if s.Err == nil {
		s.Err = os.Stderr
	}
	if s.LookupEnv == nil {
		s.LookupEnv = os.LookupEnv
	}
	if s.Environ == nil {
		s.Environ = os.Environ
	}
	return s
}

// globals are the settings every command reads.
type globals struct {
	io      Streams
	server  string
	token   string
	output  string
	timeout time.Duration
	// inputLimit caps files read by commands; 0 means maxInputBytes.
	inputLimit int64
}

// NewRootCmd builds the mcpreg command tree over s.
func NewRootCmd(s Streams) *cobra.Command {
	root, _ := newRoot(s)
	return root
}

func newRoot(s Streams) (*cobra.Command, *globals) {
	g := &globals{io: s.withDefaults()}
	root := &cobra.Command{
		Use:               "mcpreg",
		Version:           buildinfo.Version(),
		Short:             "Client for the mcpreg MCP server registry",
		SilenceUsage:      true,
		SilenceErrors:     true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return g.resolve(cmd) },
	}
	root.SetIn(g.io.In)
	root.SetOut(g.io.Out)
	root.SetErr(g.io.Err)
	pf := root.PersistentFlags()
	pf.StringVar(&g.server, "server", DefaultServer, "service base URL (env "+EnvServer+")")
	pf.StringVar(&g.token, "token", "", "API token (env "+EnvToken+", preferred: flags show in process lists)")
	pf.StringVarP(&g.output, "output", "o", "table", "output format: table or json")
	pf.DurationVar(&g.timeout, "timeout", 30*time.Second, "deadline for the whole command")
	root.AddCommand(newSubmitCmd(g), newServersCmd(g), newVersionsCmd(g))
	for _, a := range client.Actions {
		root.AddCommand(newTransitionCmd(g, a))
	}
	root.AddCommand(newAuditCmd(g), newWhoAmICmd(g), newTokenCmd(g), newPinCmd(g), newPolicyCmd(g), newInspectCmd(g), withServiceAttest(g, newAttestCmd(g)))
	root.AddCommand(newScanCmd(g), newScansCmd(g), newDriftCmd(g), newRepinCmd(g), newCredentialsCmd(g), newLintCmd(g))
	root.AddCommand(newStatusCmds(g)...)
	root.AddCommand(newDiscoveryCmd(g), newHostCmd(g), newGateCmd(g), newReceiptsCmd(g))
	return root, g
}

// resolve fills unset flags from the environment and checks the settings.
func (g *globals) resolve(cmd *cobra.Command) error {
	for flag, env := range map[string]string{"server": EnvServer, "token": EnvToken} {
		if v, ok := g.io.LookupEnv(env); ok && v != "" && !cmd.Flags().Changed(flag) {
			if err := cmd.Flags().Set(flag, v); err != nil {
				return fmt.Errorf("%s: %w", env, err)
			}
		}
	}
	if g.output != "table" && g.output != "json" {
		return fmt.Errorf("--output %q: want table or json", g.output)
	}
	if g.timeout <= 0 {
		return fmt.Errorf("--timeout %s: want a positive duration", g.timeout)
	}
	return nil
}

// errNoToken is returned before calling the service without a token.
var errNoToken = errors.New("no API token: set " + EnvToken + " or pass --token")

// client returns a client for the configured service.
func (g *globals) client() (*client.Client, error) {
	if g.token == "" {
		return nil, errNoToken
	}
	return client.New(g.server, g.token, client.WithUserAgent(userAgent))
}

// run calls the service under the command's deadline.
func (g *globals) run(cmd *cobra.Command, call func(ctx context.Context, c *client.Client) error) error {
	c, err := g.client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), g.timeout)
	defer cancel()
	err = call(ctx, c)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w (--timeout %s)", err, g.timeout)
	}
	return err
}

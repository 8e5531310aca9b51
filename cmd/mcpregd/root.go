package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpreg/mcpreg/internal/buildinfo"
	"github.com/mcpreg/mcpreg/internal/config"
	"github.com/mcpreg/mcpreg/internal/store"
)

// globalOpts are settings every subcommand reads.
type globalOpts struct {
	db        string
	logLevel  string
	logFormat string
	// Connection pool; zero keeps the store's default for the dialect.
	maxOpen, maxIdle        int
	maxLifetime, maxIdleFor time.Duration
}

// checkPool refuses negative pool settings (zero means the default).
func (g *globalOpts) checkPool() error {
	switch {
	case g.maxOpen < 0:
		return fmt.Errorf("--db-max-open-conns %d: want 1 or more (0: the default)", g.maxOpen)
	case g.maxIdle < 0:
		return fmt.Errorf("--db-max-idle-conns %d: want 1 or more (0: the default)", g.maxIdle)
	case g.maxLifetime < 0:
		return fmt.Errorf("--db-conn-max-lifetime %s: want a positive duration (0: the default)", g.maxLifetime)
	case g.maxIdleFor < 0:
		return fmt.Errorf("--db-conn-max-idle-time %s: want a positive duration (0: the default)", g.maxIdleFor)
	}
	return nil
}

// pool is the connection pool settings given.
func (g *globalOpts) pool() []store.Option {
	var opts []store.Option
	if g.maxOpen > 0 {
		opts = append(opts, store.WithMaxOpenConns(g.maxOpen))
	}
	if g.maxIdle > 0 {
		opts = append(opts, store.WithMaxIdleConns(g.maxIdle))
	}
	if g.maxLifetime > 0 {
		opts = append(opts, store.WithConnMaxLifetime(g.maxLifetime))
	}
	if g.maxIdleFor > 0 {
		opts = append(opts, store.WithConnMaxIdleTime(g.maxIdleFor))
	}
	return opts
}

func newRootCmd() *cobra.Command {
	def := config.DefaultConfig()
	g := &globalOpts{}
	root := &cobra.Command{
		Use:           "mcpregd",
		Version:       buildinfo.Version(),
		Short:         "mcpreg service: MCP server registry and attestation",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := bindEnv(cmd); err != nil {
				return err
			}
			return g.checkPool()
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.db, "db", def.DB, "database: sqlite://PATH or postgres://USER:PASS@HOST/DB (env MCPREG_DB)")
	pf.StringVar(&g.logLevel, "log-level", def.LogLevel, "log level: debug, info, warn, error (env MCPREG_LOG_LEVEL)")
	pf.StringVar(&g.logFormat, "log-format", def.LogFormat, "log format: json or text (env MCPREG_LOG_FORMAT)")
	pf.IntVar(&g.maxOpen, "db-max-open-conns", 0, fmt.Sprintf("most open database connections per process (default PostgreSQL %d, SQLite %d; env MCPREG_DB_MAX_OPEN_CONNS)", store.DefaultPostgresMaxOpenConns, store.DefaultSQLiteMaxOpenConns))
	pf.IntVar(&g.maxIdle, "db-max-idle-conns", 0, fmt.Sprintf("idle database connections kept per process (default PostgreSQL %d, SQLite %d; env MCPREG_DB_MAX_IDLE_CONNS)", store.DefaultPostgresMaxIdleConns, store.DefaultSQLiteMaxOpenConns))
	pf.DurationVar(&g.maxLifetime, "db-conn-max-lifetime", 0, fmt.Sprintf("replace database connections this old (default PostgreSQL %s, SQLite never; env MCPREG_DB_CONN_MAX_LIFETIME)", store.DefaultPostgresConnMaxLifetime))
	pf.DurationVar(&g.maxIdleFor, "db-conn-max-idle-time", 0, fmt.Sprintf("close database connections idle this long (default PostgreSQL %s, SQLite never; env MCPREG_DB_CONN_MAX_IDLE_TIME)", store.DefaultPostgresConnMaxIdleTime))
	root.AddCommand(newServeCmd(g), newMigrateCmd(g), newTokenCmd(g), newAuditCmd(g), newAttestCmd(g))
	root.AddCommand(newDiscoveryCmd(), newUserCmd(g), newUpstreamCmd(g))
	return root
}

// bindEnv fills every flag not given on the command line from MCPREG_<FLAG>,
// so each setting works as a flag and as an environment variable alike.
func bindEnv(cmd *cobra.Command) error {
	var errs []string
	visit := func(f *pflag.Flag) {
		env := "MCPREG_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v, ok := os.LookupEnv(env)
		if !ok || f.Changed {
			return
		}
		if err := cmd.Flags().Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Sprintf("%s=%q: %v", env, v, err))
		}
	}
	cmd.Flags().VisitAll(visit)
	if len(errs) > 0 {
		return fmt.Errorf("environment: %s", strings.Join(errs, "; "))
	}
	return nil
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return slog.New(slog.NewJSONHandler(w, opts)), nil
}

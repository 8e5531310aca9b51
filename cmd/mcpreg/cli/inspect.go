package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/pin"
	"github.com/mcpreg/mcpreg/scan"
)

// inspectLoopback is allowed by default: inspect runs on the owner's own
// machine, where a server under development listens on loopback.
const inspectLoopback = "127.0.0.0/8,::1,localhost"

type inspectOptions struct {
	stdio, url          string
	allow, env, headers []string
}

func newInspectCmd(g *globals) *cobra.Command {
	var o inspectOptions
	cmd := &cobra.Command{
		Use:   `inspect (--stdio "CMD ARGS" | --url URL)`,
		Short: "Read a live MCP server's tools and pins, without the registry",
		Long: "Start a stdio server (--stdio) or connect to a Streamable HTTP one (--url), list its tools\n" +
			"twice the way the registry's scanner does, and print the initialize facts, the pins and any\n" +
			"findings (--output json adds every tool's raw JSON). Needs no service and no token.\n\n" +
			"--stdio is split into words with shell-like quoting ('...', \"...\", \\) but never run by a\n" +
			"shell: no variables, globs or pipes. The server gets an empty environment except PATH (yours),\n" +
			"HOME and TMPDIR (a fresh temporary directory) and what --env names.\n" +
			"--url may be loopback (" + inspectLoopback + "); other private, link-local and metadata\n" +
			"addresses need --allow-host. --timeout defaults to " + scan.DefaultDeadline.String() + " here.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return g.inspect(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.stdio, "stdio", "", "command line of a stdio server")
	f.StringVar(&o.url, "url", "", "URL of a Streamable HTTP server")
	f.StringArrayVar(&o.allow, "allow-host", nil, "CIDR block or host name --url may reach although private (repeatable)")
	f.StringArrayVar(&o.env, "env", nil, "NAME=VALUE for the stdio server, or NAME to pass yours on (repeatable)")
	f.StringArrayVar(&o.headers, "header", nil, `"Name: value" HTTP header for --url (repeatable)`)
	cmd.MarkFlagsMutuallyExclusive("stdio", "url")
	cmd.MarkFlagsOneRequired("stdio", "url")
	return cmd
}

func (g *globals) inspect(cmd *cobra.Command, o inspectOptions) error {
	target, err := g.inspectTarget(o)
	if err != nil {
		return err
	}
	allow, err := scan.ParseAllowList(strings.Join(append([]string{inspectLoopback}, o.allow...), ","))
	if err != nil {
		return fmt.Errorf("--allow-host: %w", err)
	}
	timeout := g.timeout
	if !cmd.Flags().Changed("timeout") {
		timeout = scan.DefaultDeadline
	}
	r, err := scan.NewReader(scan.Limits{Deadline: timeout}, allow)
	if err != nil {
		return err
	}
	snap, err := r.Read(cmd.Context(), target)
	if err != nil {
		return withStderr(err, snap.Stderr)
	}
	if g.output == "json" {
		return writeSnapshotJSON(g.io.Out, snap)
	}
	return printSnapshot(g.io.Out, snap)
}

func (g *globals) inspectTarget(o inspectOptions) (scan.Target, error) {
	if o.url != "" {
		headers, err := parseHeaders(o.headers)
		return scan.HTTPTarget{URL: o.url, Headers: headers}, err
	}
	words, err := splitCommand(o.stdio)
	if err != nil {
		return nil, fmt.Errorf("--stdio: %w", err)
	}
	command, err := exec.LookPath(words[0])
	if err == nil {
		command, err = filepath.Abs(command)
	}
	if err != nil {
		return nil, fmt.Errorf("--stdio: %w", err)
	}
	env, err := g.inspectEnv(o.env)
	return scan.StdioTarget{Command: command, Args: words[1:], Env: env}, err
}

// inspectEnv builds the stdio server's environment: the caller's PATH, then
// --env entries.
func (g *globals) inspectEnv(entries []string) (map[string]string, error) {
	env := map[string]string{}
	if path, ok := g.io.LookupEnv("PATH"); ok {
		env["PATH"] = path
	}
	for _, e := range entries {
		name, value, hasValue := strings.Cut(e, "=")
		if !hasValue {
			v, ok := g.io.LookupEnv(name)
			if !ok {
				return nil, fmt.Errorf("--env %s: not set in your environment", name)
			}
			value = v
		}
		env[name] = value
	}
	return env, nil
}

func parseHeaders(entries []string) (map[string]string, error) {
	h := map[string]string{}
	for _, e := range entries {
		name, value, ok := strings.Cut(e, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("--header %q: want \"Name: value\"", e)
		}
		h[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	return h, nil
}

// splitCommand splits s into words like a POSIX shell, without expanding
// anything: blanks separate words, '...' is literal, "..." is literal but
// for \" \\ \$ and \`, and a backslash elsewhere escapes the next character.
func splitCommand(s string) ([]string, error) {
	var sp splitter
	for _, r := range s {
		sp.next(r)
	}
	if sp.escaped || sp.quote != 0 {
		return nil, errors.New("unterminated quote or escape")
	}
	sp.endWord()
	if len(sp.words) == 0 {
		return nil, errors.New("empty command")
	}
	return sp.words, nil
}

type splitter struct {
	words   []string
	word    strings.Builder
	inWord  bool
	quote   rune
	escaped bool
}

func (sp *splitter) next(r rune) {
	switch {
	case sp.escaped:
		if sp.quote == '"' && !strings.ContainsRune("\"\\$`", r) {
			sp.word.WriteRune('\\')
		}
		sp.word.WriteRune(r)
		sp.escaped = false
	case r == '\\' && sp.quote != '\'':
		sp.escaped, sp.inWord = true, true
	case sp.quote != 0 && r == sp.quote:
		sp.quote = 0
	case sp.quote != 0:
		sp.word.WriteRune(r)
	case r == '\'' || r == '"':
		sp.quote, sp.inWord = r, true
	case r == ' ' || r == '\t' || r == '\n':
		sp.endWord()
	default:
		sp.word.WriteRune(r)
		sp.inWord = true
	}
}

func (sp *splitter) endWord() {
	if sp.inWord {
		sp.words = append(sp.words, sp.word.String())
	}
	sp.word.Reset()
	sp.inWord = false
}

// withStderr adds what a failed stdio server wrote to stderr.
func withStderr(err error, stderr string) error {
	if stderr == "" {
		return err
	}
	return fmt.Errorf("%w\nserver stderr:\n%s", err, strings.ToValidUTF8(stderr, "\uFFFD"))
}

// writeSnapshotJSON prints the whole snapshot, raw tools included, indented.
func writeSnapshotJSON(w io.Writer, snap *scan.Snapshot) error {
	out := struct {
		*scan.Snapshot
		DurationMs int64 `json:"durationMs"`
	}{snap, snap.Duration.Milliseconds()}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := buf.WriteTo(w)
	return err
}

func printSnapshot(w io.Writer, snap *scan.Snapshot) error {
	t := newTable(w)
	t.row("Server:", string(snap.ServerInfo))
	t.row("Protocol version:", snap.ProtocolVersion)
	t.row("Instructions:", describeInstructions(snap.InstructionsPresent, snap.Instructions))
	t.row("Tools:", fmt.Sprintf("%d (%d pages, listed %d times)", len(snap.Tools.Tools), snap.Pages, snap.Lists))
	t.row("Prompts:", strconv.Itoa(len(snap.Prompts)))
	t.row("Resources:", fmt.Sprintf("%d (and %d templates)", len(snap.Resources), len(snap.ResourceTemplates)))
	t.row("Duration:", snap.Duration.Round(time.Millisecond).String())
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	pins, err := computePins(snap.ModelFile())
	if err != nil {
		return fmt.Errorf("what the server showed: %w", err)
	}
	if err := printComputedPins(w, pin.SpecVersionV2, pins); err != nil {
		return err
	}
	if err := printReadings(w, snap); err != nil {
		return err
	}
	return printFindings(w, snap)
}

// printReadings says what each protocol version returned.
func printReadings(w io.Writer, snap *scan.Snapshot) error {
	fmt.Fprintf(w, "\nProtocol versions read (%d):\n", len(snap.Readings))
	t := newTable(w)
	t.row("  VERSION", "OPENED BY", "SERVER", "INSTRUCTIONS", "TOOLS", "TOOL DEFINITIONS")
	for _, r := range snap.Readings {
		opened := "initialize"
		if r.ProtocolVersion >= "2026-07-28" {
			opened = "server/discover"
		}
		first := r.Listings[0]
		t.row("  "+r.ProtocolVersion, opened, string(r.ServerInfo), describeInstructions(r.InstructionsPresent, r.Instructions),
			fmt.Sprint(len(first.Pins.Tools)), first.Pins.ToolDefinitionHash)
	}
	return t.flush()
}

func describeInstructions(present bool, instructions *string) string {
	switch {
	case !present:
		return "absent"
	case instructions == nil:
		return "null"
	case *instructions == "":
		return `"" (empty string)`
	}
	return fmt.Sprintf("%d characters", len([]rune(*instructions)))
}

func printFindings(w io.Writer, snap *scan.Snapshot) error {
	if len(snap.Findings) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nFindings (%d):\n", len(snap.Findings))
	t := newTable(w)
	t.row("  SEVERITY", "KIND", "TOOL", "MESSAGE", "EVIDENCE")
	for _, f := range snap.Findings {
		t.row("  "+string(f.Severity), f.Kind, f.Tool, f.Message, f.Evidence)
	}
	return t.flush()
}

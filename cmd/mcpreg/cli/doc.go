// Package cli holds the commands of the mcpreg command-line client.
//
// [NewRootCmd] builds the whole command tree over injectable streams and
// environment, so tests in any package can run the CLI in-process:
//
//	var out, errOut bytes.Buffer
//	root := cli.NewRootCmd(cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut,
//		LookupEnv: func(string) (string, bool) { return "", false }})
//	root.SetArgs([]string{"--server", url, "--token", tok, "versions", "get", "io.github.acme/weather", "1.0.0"})
//	err := root.ExecuteContext(ctx)
//
// Build a fresh root command for every run: cobra keeps parsed flag values
// in the command tree.
//
// Commands never exit the process: every failure is returned as an error
// (the service's message and request id included), and the mcpreg binary
// prints it and exits 1. A few commands print their result and then return
// an error that makes the exit status meaningful: scan when the scan itself
// failed (drift is a result, not a failure), lint when a finding reaches
// --fail-on. Results go to Out, as tables or, with --output json,
// as the API's own JSON (protojson) so scripts can parse them.
package cli

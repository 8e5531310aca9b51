// Command mcpreg is the mcpreg command-line client: submit server versions,
// review them, read the audit log, manage tokens, and compute pins offline.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpreg/mcpreg/cmd/mcpreg/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	root := cli.NewRootCmd(cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpreg:", err)
		os.Exit(1)
	}
}

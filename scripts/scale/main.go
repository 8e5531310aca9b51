// Command scale measures mcpreg at fleet scale: it seeds a synthetic
// fleet straight into an empty database (registry.GenerateFleet: a valid
// audit chain, a stated share approved), starts mcpregd on it, and times
// each operation over REST with one client (p50 and p99): submit,
// approve, get-version, list (first page and a page at depth 50,000,
// keyset), the official /v0.1 list (first page and a deep cursor), resolve
// (first page and a 304), plus start-up time and RSS; then a sync of the
// same fleet from a fake upstream into a second empty database, killed
// with SIGKILL halfway and resumed. It prints a Markdown table row per
// operation. A development tool, not part of the product:
//
//	go run ./scripts/scale -mcpregd bin/mcpregd -db postgres://... -sync-db postgres://... -servers 100000
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	var c config
	flag.StringVar(&c.bin, "mcpregd", "bin/mcpregd", "the mcpregd binary (make build)")
	flag.StringVar(&c.db, "db", "", "empty database to seed: sqlite://PATH or postgres://...")
	flag.StringVar(&c.syncDB, "sync-db", "", "empty database the sync imports into (none: no sync measured)")
	flag.IntVar(&c.servers, "servers", 1000, "servers in the fleet (2.5 versions each on average)")
	flag.Float64Var(&c.approved, "approved", 0.8, "share of versions approved")
	flag.IntVar(&c.reps, "reps", 200, "requests per operation and round")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds of the operations; each figure is the median over them")
	flag.Parse()
	if c.db == "" {
		fmt.Fprintln(os.Stderr, "scale: -db is required (an empty database)")
		os.Exit(2)
	}
	res, err := run(c, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
	res.markdown(os.Stdout)
}

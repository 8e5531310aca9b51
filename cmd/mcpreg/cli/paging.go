package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// pageFlags are the paging flags of every list command.
type pageFlags struct {
	size  int32
	token string
	all   bool
}

func (p *pageFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Int32Var(&p.size, "page-size", 0, "items per page (0: the service's default)")
	f.StringVar(&p.token, "page-token", "", "continue from this nextPageToken")
	f.BoolVar(&p.all, "all", false, "follow nextPageToken to the last page")
}

func (p *pageFlags) check() error {
	if p.size < 0 {
		return fmt.Errorf("--page-size %d: want 0 or more", p.size)
	}
	return nil
}

// collect fetches the page at p.token and, with --all, every page after it.
// It returns the items and the token of the next page not fetched.
func collect[T any](p *pageFlags, fetch func(token string) ([]T, string, error)) ([]T, string, error) {
	var items []T
	seen := map[string]bool{}
	token := p.token
	for {
		page, next, err := fetch(token)
		if err != nil {
			return nil, "", err
		}
		items = append(items, page...)
		if !p.all || next == "" {
			return items, next, nil
		}
		if seen[next] {
			return nil, "", fmt.Errorf("the service returned page token %q twice; stopping", next)
		}
		seen[next], token = true, next
	}
}

// moreHint tells a table reader on stderr how to get the next page.
func (g *globals) moreHint(next string) {
	if next != "" && g.output == "table" {
		fmt.Fprintf(g.io.Err, "more results: --page-token %s (or --all)\n", next)
	}
}

package registry

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/discovery"
)

// randomServer is a server with 1 to 3 versions, each restricted to the
// prod or staging environment or to none, or nil (no version left) when
// gone is set.
func randomServer(r *rand.Rand, name string, gone bool) *discoveryServer {
	ds := &discoveryServer{name: name}
	if gone {
		return ds
	}
	for j := range 1 + r.IntN(3) {
		v := &discoveryVersion{entry: discovery.Entry{Name: name, Version: fmt.Sprintf("1.%d.0", j)}}
		switch r.IntN(4) {
		case 0:
			v.restricted, v.allow = true, []string{"prod"}
		case 1:
			v.restricted, v.allow = true, []string{"staging"}
		}
		ds.versions = append(ds.versions, v)
	}
	sortDiscoveryServer(ds)
	return ds
}

// TestDiscoveryCountsFollowChanges: the counts a changed index carries
// (serverCounts.apply after mergeServers) equal counting the merged
// servers afresh, and the first page with its total equals selecting from
// every server, for hosts with no label, with prod, and for all
// environments, after each of many random changes.
func TestDiscoveryCountsFollowChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	names := make([]string, 60)
	for i := range names {
		names[i] = fmt.Sprintf("io.github.a/s%02d", i)
	}
	var servers []*discoveryServer
	for _, n := range names[:30] {
		servers = append(servers, randomServer(r, n, false))
	}
	idx := &discoveryIndex{servers: servers, counts: countServers(servers)}
	for step := range 300 {
		changed := map[string]*discoveryServer{}
		for range 1 + r.IntN(4) {
			n := names[r.IntN(len(names))]
			changed[n] = randomServer(r, n, r.IntN(4) == 0)
		}
		next := &discoveryIndex{servers: mergeServers(idx.servers, changed)}
		next.counts = idx.counts.apply(idx, changed)
		if !slices.IsSortedFunc(next.servers, func(a, b *discoveryServer) int { return strings.Compare(a.name, b.name) }) {
			t.Fatalf("step %d: merged servers out of order", step)
		}
		want := countServers(next.servers)
		if next.counts.open != want.open || len(next.counts.closed) != len(want.closed) {
			t.Fatalf("step %d: counts %d open, %d closed; counting afresh %d, %d", step,
				next.counts.open, len(next.counts.closed), want.open, len(want.closed))
		}
		for _, who := range []struct {
			labels []string
			all    bool
		}{{nil, false}, {[]string{"prod"}, false}, {nil, true}} {
			doc, err := next.document(ResolveQuery{PageSize: 7}, who.labels, who.all)
			if err != nil {
				t.Fatal(err)
			}
			total, page := 0, []string{}
			for _, ds := range next.servers {
				if v := ds.pick("", who.labels, who.all); v != nil {
					total++
					if len(page) < 7 {
						page = append(page, v.entry.Name+"@"+v.entry.Version)
					}
				}
			}
			var got []string
			for _, e := range doc.Servers {
				got = append(got, e.Name+"@"+e.Version)
			}
			if doc.TotalSize != total || !slices.Equal(got, page) || (doc.NextPageToken != "") != (total > 7) {
				t.Fatalf("step %d, labels %v all %v: total %d page %v next %q; every server gives %d %v",
					step, who.labels, who.all, doc.TotalSize, got, doc.NextPageToken, total, page)
			}
		}
		idx = next
	}
}

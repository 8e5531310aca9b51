package registry

import (
	"fmt"
	"maps"
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
	ns, _, _ := strings.Cut(name, "/")
	ds := &discoveryServer{name: name, namespace: ns}
	if gone {
		return ds
	}
	for j := range 1 + r.IntN(3) {
		v := newDiscoveryVersion(0, &discovery.Entry{Name: name, Version: fmt.Sprintf("1.%d.0", j)}, nil)
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

// TestDiscoveryCountsFollowChanges: after each of many random changes,
// the chunked server list a delta merges (in chunks of 4, so chunks are
// cut, emptied and dropped) holds exactly the servers left, in order, and
// finds each by name and position; the counts a changed index carries
// (serverCounts.apply) equal counting the merged servers afresh; and the
// first page with its total, and the page after a token, equal selecting
// from every server, for hosts with no label, with prod, and for all
// environments.
func TestDiscoveryCountsFollowChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	// Three namespaces, one a prefix of another's name (io.github.a and
	// io.github.ab): a namespace's servers sort together.
	spaces := []string{"io.github.a", "io.github.ab", "io.github.b"}
	names := make([]string, 60)
	for i := range names {
		names[i] = fmt.Sprintf("%s/s%02d", spaces[i%3], i)
	}
	var servers []*discoveryServer
	ref := map[string]*discoveryServer{}
	for _, n := range names[:30] {
		servers = append(servers, randomServer(r, n, false))
		ref[n] = servers[len(servers)-1]
	}
	slices.SortFunc(servers, func(a, b *discoveryServer) int { return strings.Compare(a.name, b.name) })
	list := newServerList(servers, 4)
	idx := &discoveryIndex{servers: list, counts: countServers(list.all())}
	for step := range 300 {
		changed := map[string]*discoveryServer{}
		for range 1 + r.IntN(4) {
			n := names[r.IntN(len(names))]
			changed[n] = randomServer(r, n, r.IntN(4) == 0)
			if ref[n] = changed[n]; len(changed[n].versions) == 0 {
				delete(ref, n)
			}
		}
		next := &discoveryIndex{servers: idx.servers.merge(changed)}
		next.counts = idx.counts.apply(idx, changed)
		checkServerList(t, step, next.servers, ref)
		want := countServers(next.servers.all())
		if next.counts.open != want.open || len(next.counts.closed) != len(want.closed) {
			t.Fatalf("step %d: counts %d open, %d closed; counting afresh %d, %d", step,
				next.counts.open, len(next.counts.closed), want.open, len(want.closed))
		}
		for _, who := range []struct {
			labels    []string
			all       bool
			namespace string
		}{{nil, false, ""}, {[]string{"prod"}, false, ""}, {nil, true, ""}, {nil, false, "io.github.a"},
			{[]string{"prod"}, false, "io.github.ab"}, {nil, true, "io.github.b"}, {nil, true, "io.github.c"}} {
			token := ""
			var visible []string
			for ds := range next.servers.all() {
				if v := ds.pick("", who.labels, who.all); v != nil && (who.namespace == "" || ds.namespace == who.namespace) {
					visible = append(visible, v.name+"@"+v.version)
				}
			}
			for from := 0; ; from += 7 {
				doc, err := next.document(ResolveQuery{PageSize: 7, PageToken: token, Namespace: who.namespace}, who.labels, who.all)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, e := range doc.Servers {
					got = append(got, e.Name+"@"+e.Version)
				}
				page := visible[min(from, len(visible)):min(from+7, len(visible))]
				if doc.TotalSize != len(visible) || !slices.Equal(got, page) || (doc.NextPageToken != "") != (len(visible) > from+7) {
					t.Fatalf("step %d, labels %v all %v namespace %q, page from %d: total %d page %v next %q; every server gives %d %v",
						step, who.labels, who.all, who.namespace, from, doc.TotalSize, got, doc.NextPageToken, len(visible), page)
				}
				if token = doc.NextPageToken; token == "" {
					break
				}
			}
		}
		idx = next
	}
}

// checkServerList fails unless l holds exactly ref's servers in name
// order, each at its position and found by its name.
func checkServerList(t *testing.T, step int, l serverList, ref map[string]*discoveryServer) {
	t.Helper()
	names := slices.Sorted(maps.Keys(ref))
	var got []string
	for ds := range l.all() {
		got = append(got, ds.name)
	}
	if !slices.Equal(got, names) || l.len() != len(names) {
		t.Fatalf("step %d: list %v (len %d), want %v", step, got, l.len(), names)
	}
	for i, n := range names {
		if p, ok := l.search(n); !ok || p != i || l.at(i) != ref[n] {
			t.Fatalf("step %d: %s at %d (found %v), want %d and the changed server", step, n, p, ok, i)
		}
		var from []string
		for j, ds := range l.from(i) {
			if j != i+len(from) {
				t.Fatalf("step %d: from(%d) yields position %d for its %d-th server", step, i, j, len(from))
			}
			from = append(from, ds.name)
		}
		if !slices.Equal(from, names[i:]) {
			t.Fatalf("step %d: from(%d) yields %v", step, i, from)
		}
	}
	for c, ch := range l.chunks {
		if len(ch) == 0 || len(ch) > 2*l.size {
			t.Fatalf("step %d: chunk %d holds %d servers", step, c, len(ch))
		}
	}
	if p, ok := l.search("io.github.zz/after-all"); ok || p != len(names) {
		t.Fatalf("step %d: a name after every server at %d (found %v)", step, p, ok)
	}
}

// BenchmarkServerListMerge is what a delta costs the server list at
// 100,000 servers: one server replaced (an approval), in the chunked list
// and, for comparison, as one flat slice copied per change.
func BenchmarkServerListMerge(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	servers := make([]*discoveryServer, 100000)
	for i := range servers {
		servers[i] = randomServer(r, fmt.Sprintf("io.github.n%04d/s%06d", i/20, i), false)
	}
	changed := func(i int) map[string]*discoveryServer {
		n := servers[(i*7919)%len(servers)].name
		return map[string]*discoveryServer{n: randomServer(r, n, false)}
	}
	b.Run("chunked", func(b *testing.B) {
		l := newServerList(servers, serverChunk)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			l = l.merge(changed(i))
		}
	})
	b.Run("flat", func(b *testing.B) {
		l := servers
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			l = mergeServers(l, changed(i))
		}
	})
}

package registry

import (
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"
)

// serverChunk is how many servers a chunk of a serverList holds when it is
// cut; a chunk that grows past twice that is cut again.
const serverChunk = 256

// serverList is the discovery index's servers sorted by name, in chunks.
// A change copies the chunk table and the chunks it touches and shares
// the others with the list it came from, so the delta an approval makes
// allocates a few chunks, not a pointer per server of the fleet (which
// at 100,000 servers was most of what a review queue allocated, and so
// of how often the collector ran). It is immutable.
type serverList struct {
	chunks [][]*discoveryServer // each non-empty and sorted; in order
	starts []int                // starts[c] is the position of chunks[c][0]
	n      int
	size   int // serverChunk, smaller in tests
}

// newServerList cuts servers (sorted by name) into chunks of size.
func newServerList(servers []*discoveryServer, size int) serverList {
	l := serverList{size: size}
	for c := range slices.Chunk(servers, size) {
		l.chunks = append(l.chunks, c)
	}
	l.count()
	return l
}

// count sets starts and n from chunks.
func (l *serverList) count() {
	l.starts, l.n = make([]int, len(l.chunks)), 0
	for c, ch := range l.chunks {
		l.starts[c] = l.n
		l.n += len(ch)
	}
}

func (l serverList) len() int { return l.n }

// chunkAt is the chunk holding position i (0 <= i < len).
func (l serverList) chunkAt(i int) int {
	return sort.Search(len(l.starts), func(c int) bool { return l.starts[c] > i }) - 1
}

// at is the server at position i (0 <= i < len).
func (l serverList) at(i int) *discoveryServer {
	c := l.chunkAt(i)
	return l.chunks[c][i-l.starts[c]]
}

// chunkOf is the chunk a server named name is in or would go in: the
// first whose last name is not below name (the last chunk past them all).
func (l serverList) chunkOf(name string) int {
	c := sort.Search(len(l.chunks), func(c int) bool { ch := l.chunks[c]; return ch[len(ch)-1].name >= name })
	return min(c, max(len(l.chunks)-1, 0))
}

// search is the position of the first server whose name is not below
// name, and whether it is named name.
func (l serverList) search(name string) (int, bool) {
	if l.n == 0 {
		return 0, false
	}
	c := l.chunkOf(name)
	j, found := slices.BinarySearchFunc(l.chunks[c], name, func(ds *discoveryServer, n string) int { return strings.Compare(ds.name, n) })
	return l.starts[c] + j, found
}

// from yields the servers from position i on, with their positions.
func (l serverList) from(i int) iter.Seq2[int, *discoveryServer] {
	return func(yield func(int, *discoveryServer) bool) {
		if i >= l.n {
			return
		}
		c := l.chunkAt(i)
		for j := i - l.starts[c]; c < len(l.chunks); c, j = c+1, 0 {
			for ; j < len(l.chunks[c]); j++ {
				if !yield(l.starts[c]+j, l.chunks[c][j]) {
					return
				}
			}
		}
	}
}

// all yields every server in order.
func (l serverList) all() iter.Seq[*discoveryServer] {
	return func(yield func(*discoveryServer) bool) {
		for _, ch := range l.chunks {
			for _, ds := range ch {
				if !yield(ds) {
					return
				}
			}
		}
	}
}

// merge is l with the changed servers in place of l's: those with no
// version left leave, new names are inserted in order. Only the chunks
// they fall in are copied.
func (l serverList) merge(changed map[string]*discoveryServer) serverList {
	if len(l.chunks) == 0 {
		var servers []*discoveryServer
		for _, name := range slices.Sorted(maps.Keys(changed)) {
			if ds := changed[name]; len(ds.versions) > 0 {
				sortDiscoveryServer(ds)
				servers = append(servers, ds)
			}
		}
		return newServerList(servers, l.size)
	}
	byChunk := map[int]map[string]*discoveryServer{}
	for name, ds := range changed {
		c := l.chunkOf(name)
		if byChunk[c] == nil {
			byChunk[c] = map[string]*discoveryServer{}
		}
		byChunk[c][name] = ds
	}
	out := serverList{size: l.size, chunks: make([][]*discoveryServer, 0, len(l.chunks)+len(byChunk))}
	for c, ch := range l.chunks {
		touched := byChunk[c]
		if touched == nil {
			out.chunks = append(out.chunks, ch)
			continue
		}
		merged := mergeServers(ch, touched)
		if len(merged) > 2*l.size {
			for part := range slices.Chunk(merged, l.size) {
				out.chunks = append(out.chunks, part)
			}
		} else if len(merged) > 0 {
			out.chunks = append(out.chunks, merged)
		}
	}
	out.count()
	return out
}

// mergeServers is prev (sorted by name) with the changed servers in place
// of prev's: those with no version left leave, new names are inserted in
// order. It copies pointers, one pass over prev, without sorting it.
func mergeServers(prev []*discoveryServer, changed map[string]*discoveryServer) []*discoveryServer {
	names := slices.Sorted(maps.Keys(changed))
	out := make([]*discoveryServer, 0, len(prev)+len(names))
	i := 0
	for _, name := range names {
		j, found := slices.BinarySearchFunc(prev[i:], name, func(ds *discoveryServer, n string) int { return strings.Compare(ds.name, n) })
		out = append(out, prev[i:i+j]...)
		i += j
		if found {
			i++ // changed replaces it
		}
		if ds := changed[name]; len(ds.versions) > 0 {
			sortDiscoveryServer(ds)
			out = append(out, ds)
		}
	}
	return append(out, prev[i:]...)
}

package diffreview

import (
	"slices"
	"strings"
	"sync"

	"github.com/mtibben/confusables"

	"github.com/mcpreg/mcpreg/pin"
)

// ServerTools is the tool list of one server, for Shadowing.
type ServerTools struct {
	// Server is the server's name, e.g. "io.github.acme/mail".
	Server string
	// Tools are the server's tools as received.
	Tools []pin.Tool
	// Instructions are the server's instructions, if any; they are scanned
	// like descriptions.
	Instructions *string
}

// toolRef names a tool of an approved server.
type toolRef struct {
	server, name string
}

// Index holds the tools of all approved servers for Shadowing, indexed by
// exact name, confusable skeleton and (for bounded edit distance) the
// halves of their lower-case names. Build it once and reuse
// it for many candidates, replacing the servers that change (Replace);
// it is safe for concurrent use.
type Index struct {
	mu         sync.RWMutex
	byName     map[string][]toolRef
	bySkeleton map[string][]toolRef
	byLower    map[string][]toolRef // by lower-case name
	edit       *editIndex           // lower-case names of an editable length
	// byServer are each server's indexed names with their skeletons, so
	// Replace finds what to take out without computing them again.
	byServer map[string][][2]string
}

// NewIndex indexes the tools of the approved servers.
func NewIndex(approved []ServerTools) *Index {
	x := &Index{
		byName:     map[string][]toolRef{},
		bySkeleton: map[string][]toolRef{},
		byLower:    map[string][]toolRef{},
		edit:       newEditIndex(),
		byServer:   map[string][][2]string{},
	}
	for _, st := range approved {
		for _, t := range st.Tools {
			x.add(toolRef{st.Server, t.Name})
		}
	}
	return x
}

// Replace makes server's indexed tools the given names (none: the server
// leaves the index). Its cost is the server's tools (and the index
// entries they share), not the fleet's.
func (x *Index) Replace(server string, names []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, old := range x.byServer[server] {
		name, skel := old[0], old[1]
		x.byName[name] = dropServer(x.byName[name], server)
		x.bySkeleton[skel] = dropServer(x.bySkeleton[skel], server)
		lower := strings.ToLower(name)
		if refs := dropServer(x.byLower[lower], server); len(refs) > 0 {
			x.byLower[lower] = refs
		} else {
			delete(x.byLower, lower)
			x.edit.remove([]rune(lower))
		}
	}
	delete(x.byServer, server)
	for _, name := range names {
		x.add(toolRef{server, name})
	}
}

func dropServer(refs []toolRef, server string) []toolRef {
	return slices.DeleteFunc(refs, func(r toolRef) bool { return r.server == server })
}

// add indexes one tool.
func (x *Index) add(ref toolRef) {
	x.byName[ref.name] = append(x.byName[ref.name], ref)
	k := skeletonKey(ref.name)
	x.bySkeleton[k] = append(x.bySkeleton[k], ref)
	lower := strings.ToLower(ref.name)
	x.byLower[lower] = append(x.byLower[lower], ref)
	if runes := []rune(lower); editable(len(runes)) {
		x.edit.add(runes)
	}
	x.byServer[ref.server] = append(x.byServer[ref.server], [2]string{ref.name, k})
}

// skeletonKey is the case-insensitive TR39 confusable skeleton of a name:
// "send_emaіl" (Cyrillic і), "send_emai1" and "Send_Email" share one.
func skeletonKey(name string) string {
	return confusables.Skeleton(strings.ToLower(confusables.Skeleton(strings.ToLower(name))))
}

// Edit-distance rules for confusable names.
const (
	minEditLength = 5  // shorter names are not compared by distance
	longName      = 10 // names this long may differ by two edits
	// maxEditLength: longer names are not compared by distance (exact and
	// look-alike matches still apply). A name costs the edit index work
	// in the square of its length, and a submitted name is hostile input;
	// tool names are meant to be at most 128 characters.
	maxEditLength = 128
)

// editable reports whether a name of n runes is compared by distance.
func editable(n int) bool { return n >= minEditLength && n <= maxEditLength }

// maxEdits is the largest edit distance at which names of n runes count
// as confusable.
func maxEdits(n int) int {
	if n >= longName {
		return 2
	}
	return 1
}

// near returns approved tools whose lower-case names are within the edit
// budget of name, excluding exact and skeleton matches.
func (x *Index) near(name string) []toolRef {
	lower := []rune(strings.ToLower(name))
	n := len(lower)
	if !editable(n) {
		return nil
	}
	var out []toolRef
	for _, other := range x.edit.within(lower, maxEdits(n)) {
		out = append(out, x.byLower[other]...)
	}
	return out
}

// boundedDistance returns the optimal-string-alignment distance between a
// and b (insertions, deletions, substitutions and adjacent transpositions
// cost one), or k+1 when it exceeds k. It only fills a band of width 2k+1.
func boundedDistance(a, b []rune, k int) int {
	var s editScratch
	return s.distance(a, b, k)
}

// editScratch holds the three table rows boundedDistance needs, reused
// across calls.
type editScratch struct {
	rows [3][]int
}

// distance is boundedDistance with reused rows.
func (s *editScratch) distance(a, b []rune, k int) int {
	if abs(len(a)-len(b)) > k {
		return k + 1
	}
	prev2, prev, cur := s.reset(len(b) + 1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		if bandRow(a, b, i, k, prev2, prev, cur) > k {
			return k + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], k+1)
}

// reset sizes the rows to n cells and returns them.
func (s *editScratch) reset(n int) (prev2, prev, cur []int) {
	for i := range s.rows {
		if cap(s.rows[i]) < n {
			s.rows[i] = make([]int, n)
		}
		s.rows[i] = s.rows[i][:n]
	}
	return s.rows[0], s.rows[1], s.rows[2]
}

// outOfBand fills table cells outside the band.
const outOfBand = 1 << 30

// bandRow fills row i of the table inside the band |i-j| <= k and returns
// the row's minimum.
func bandRow(a, b []rune, i, k int, prev2, prev, cur []int) int {
	for j := range cur {
		cur[j] = outOfBand
	}
	if i <= k {
		cur[0] = i
	}
	rowMin := outOfBand
	for j := max(1, i-k); j <= min(len(b), i+k); j++ {
		cur[j] = osaCell(a, b, i, j, prev2, prev, cur)
		rowMin = min(rowMin, cur[j])
	}
	return rowMin
}

// osaCell computes one cell of the optimal-string-alignment table.
func osaCell(a, b []rune, i, j int, prev2, prev, cur []int) int {
	cost := 1
	if a[i-1] == b[j-1] {
		cost = 0
	}
	d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
	if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
		d = min(d, prev2[j-2]+1)
	}
	return d
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

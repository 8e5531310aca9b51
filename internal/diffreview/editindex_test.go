package diffreview

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/pin"
)

// mutate applies edits random insertions, deletions, substitutions and
// adjacent transpositions to s over alphabet.
func mutate(r *rand.Rand, s []rune, edits int, alphabet []rune) []rune {
	s = slices.Clone(s)
	for range edits {
		i := r.IntN(len(s) + 1)
		switch op := r.IntN(4); {
		case op == 0:
			s = slices.Insert(s, i, alphabet[r.IntN(len(alphabet))])
		case op == 1 && i < len(s):
			s = slices.Delete(s, i, i+1)
		case op == 2 && i < len(s):
			s[i] = alphabet[r.IntN(len(alphabet))]
		case op == 3 && i+1 < len(s):
			s[i], s[i+1] = s[i+1], s[i]
		}
	}
	return s
}

// bruteWithin is what editIndex.within must return: every name of
// minEditLength runes or more at distance 1 to k, by comparing them all.
func bruteWithin(names map[string]bool, a []rune, k int) []string {
	var out []string
	for s := range names {
		b := []rune(s)
		if len(b) < minEditLength {
			continue
		}
		if d := boundedDistance(a, b, k); d > 0 && d <= k {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// TestEditIndexMatchesFullScan checks the index against comparing every
// name, on names built to sit one and two edits from each other (a small
// alphabet, so halves collide often), before and after names leave.
func TestEditIndexMatchesFullScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	alphabet := []rune("ab_cé语")
	var bases [][]rune
	for range 60 {
		b := make([]rune, 4+r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		bases = append(bases, b)
	}
	names := map[string]bool{}
	x := newEditIndex()
	for _, b := range bases {
		for range 8 {
			m := mutate(r, b, r.IntN(4), alphabet)
			if len(m) >= minEditLength && !names[string(m)] {
				names[string(m)] = true
				x.add(m)
			}
		}
	}
	check := func(stage string) {
		t.Helper()
		found := 0
		for _, b := range bases {
			for range 20 {
				q := mutate(r, b, r.IntN(4), alphabet)
				if len(q) < minEditLength {
					continue
				}
				for k := 1; k <= 2; k++ {
					want, got := bruteWithin(names, q, k), x.within(q, k)
					found += len(want)
					if !slices.Equal(got, want) {
						t.Fatalf("%s: within(%q, %d) = %q, full scan finds %q", stage, string(q), k, got, want)
					}
				}
			}
		}
		if found < 500 {
			t.Fatalf("%s: only %d near names in the queries: the test no longer exercises the index", stage, found)
		}
	}
	check("built")
	i := 0
	for s := range names {
		if i++; i%2 == 0 {
			delete(names, s)
			x.remove([]rune(s))
		}
	}
	check("after removals")
	for s := range names {
		x.add([]rune(s)) // adding twice changes nothing
	}
	check("after adding again")
}

// TestIndexNearFollowsReplace checks that a confusable name found through
// the index goes when its only server leaves and stays while another
// server still has it.
func TestIndexNearFollowsReplace(t *testing.T) {
	x := NewIndex([]ServerTools{
		{Server: "a/one", Tools: []pin.Tool{{Name: "send_email"}}},
		{Server: "a/two", Tools: []pin.Tool{{Name: "Send_Email"}, {Name: "list_files"}}},
	})
	servers := func(name string) []string {
		var out []string
		for _, ref := range x.near(name) {
			out = append(out, ref.server+":"+ref.name)
		}
		slices.Sort(out)
		return out
	}
	if got, want := servers("send_emial"), []string{"a/one:send_email", "a/two:Send_Email"}; !slices.Equal(got, want) {
		t.Fatalf("near = %v, want %v", got, want)
	}
	x.Replace("a/one", nil)
	if got, want := servers("send_emial"), []string{"a/two:Send_Email"}; !slices.Equal(got, want) {
		t.Fatalf("after a/one left: near = %v, want %v", got, want)
	}
	x.Replace("a/two", []string{"list_files"})
	if got := servers("send_emial"); len(got) != 0 {
		t.Fatalf("after Send_Email left: near = %v, want none", got)
	}
	if got, want := servers("list_file"), []string{"a/two:list_files"}; !slices.Equal(got, want) {
		t.Fatalf("near(list_file) = %v, want %v", got, want)
	}
}

// BenchmarkIndexNear measures one confusable-name lookup against indexes of
// 1,000 and 100,000 distinct tool names of similar lengths.
func BenchmarkIndexNear(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			var servers []ServerTools
			for i := range n {
				name := fmt.Sprintf("%s_%s_%d", benchVerbs[r.IntN(len(benchVerbs))], benchNouns[r.IntN(len(benchNouns))], i)
				servers = append(servers, ServerTools{Server: fmt.Sprintf("s/%d", i), Tools: []pin.Tool{{Name: name}}})
			}
			x := NewIndex(servers)
			b.ReportAllocs()
			for b.Loop() {
				x.near("list_issues_4711")
				x.near("scale_echo")
			}
		})
	}
}

// TestIndexSkipsOverlongNames: a tool name longer than maxEditLength
// (hostile input: the edit index's work grows with the square of a name's
// length) is neither indexed nor looked up by distance, yet an exact or
// look-alike copy of it is still found.
func TestIndexSkipsOverlongNames(t *testing.T) {
	long := strings.Repeat("ab", 50_000) // no two equal runes side by side: the costly case
	x := NewIndex([]ServerTools{{Server: "a/one", Tools: []pin.Tool{toolJSON(long, "x", nil), toolJSON("send_email", "x", nil)}}})
	if n := len(x.edit.names); n != 1 {
		t.Fatalf("the edit index holds %d names, want only send_email", n)
	}
	if got := x.near(long[1:] + "b"); len(got) != 0 {
		t.Fatalf("an overlong name was compared by distance: %v", got)
	}
	fs := x.Shadowing(ServerTools{Server: "b/two", Tools: []pin.Tool{toolJSON(long, "x", nil), toolJSON(strings.ToUpper(long[:200])+long[200:], "x", nil)}})
	kinds := map[string]int{}
	for _, f := range fs {
		kinds[f.Kind]++
	}
	if kinds[KindNameCollision] != 1 || kinds[KindConfusableName] != 1 {
		t.Errorf("findings %v, want the exact and the case-variant copies found", kinds)
	}
	if !editable(maxEditLength) || editable(maxEditLength+1) || editable(minEditLength-1) {
		t.Error("editable does not bound names to [minEditLength, maxEditLength]")
	}
}

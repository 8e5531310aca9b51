package diffreview

import (
	"hash/maphash"
	"slices"
)

// editIndex finds the indexed names within maxEdits of a name without
// comparing the name with every indexed name of a similar length.
//
// Each distinct name b of m runes is split into halves b[:m/2] and
// b[m/2:]; each half is indexed under itself and under every string one
// deletion away from it, keyed with m and which half it is. If a name a is
// within two edits of b (insertions, deletions, substitutions and adjacent
// transpositions), the best alignment splits a into a prefix aligned with
// b's first half and a suffix aligned with its second, and one of the two
// pairs is at most one edit apart: two edits cannot touch both halves
// twice, and a transposition across the split costs one in each half only
// when there is at most one other edit. If b's first half is at most one
// edit from the prefix of a it aligns with, a[:m/2] and that half share a
// string at most one deletion from each: the prefix is at most one rune
// longer or shorter than the half, and a[:m/2] drops or adds that rune at
// its end (the same holds for the second half and a's suffix of m-m/2
// runes). So the candidates are the names sharing a key with a[:m/2] or
// a[n-(m-m/2):] for each m within k of a's length n, and each is verified
// with the bounded distance. A name costs about m+2 keys.
type editIndex struct {
	seed  maphash.Seed
	names map[string]int32 // lower-case name → id
	lower [][]rune         // id → the name's runes (nil: free)
	free  []int32
	keys  map[uint64][]int32
}

func newEditIndex() *editIndex {
	return &editIndex{seed: maphash.MakeSeed(), names: map[string]int32{}, keys: map[uint64][]int32{}}
}

// add indexes a lower-case name (of an editable length), once.
func (e *editIndex) add(lower []rune) {
	s := string(lower)
	if _, ok := e.names[s]; ok {
		return
	}
	var id int32
	if n := len(e.free); n > 0 {
		id, e.free = e.free[n-1], e.free[:n-1]
		e.lower[id] = lower
	} else {
		id = int32(len(e.lower))
		e.lower = append(e.lower, lower)
	}
	e.names[s] = id
	e.eachKey(lower, func(k uint64) {
		if ids := e.keys[k]; len(ids) == 0 || ids[len(ids)-1] != id {
			e.keys[k] = append(ids, id)
		}
	})
}

// remove takes a name out of the index.
func (e *editIndex) remove(lower []rune) {
	s := string(lower)
	id, ok := e.names[s]
	if !ok {
		return
	}
	e.eachKey(lower, func(k uint64) {
		ids := slices.DeleteFunc(e.keys[k], func(x int32) bool { return x == id })
		if len(ids) == 0 {
			delete(e.keys, k)
		} else {
			e.keys[k] = ids
		}
	})
	delete(e.names, s)
	e.lower[id] = nil
	e.free = append(e.free, id)
}

// eachKey calls fn with the keys of an indexed name.
func (e *editIndex) eachKey(b []rune, fn func(uint64)) {
	m := len(b)
	h := m / 2
	e.variants(m, 0, b[:h], fn)
	e.variants(m, 1, b[h:], fn)
}

// variants calls fn with the keys of s and of each string one deletion
// from s, for half of names of m runes.
func (e *editIndex) variants(m, half int, s []rune, fn func(uint64)) {
	fn(e.key(m, half, s, -1))
	for i := range s {
		if i > 0 && s[i] == s[i-1] {
			continue // deleting either of two equal runes gives one string
		}
		fn(e.key(m, half, s, i))
	}
}

// key hashes (m, half, s without the rune at skip).
func (e *editIndex) key(m, half int, s []rune, skip int) uint64 {
	var h maphash.Hash
	h.SetSeed(e.seed)
	var buf [4]byte
	put := func(v uint32) {
		buf[0], buf[1], buf[2], buf[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		_, _ = h.Write(buf[:])
	}
	put(uint32(m)<<1 | uint32(half))
	for i, r := range s {
		if i != skip {
			put(uint32(r))
		}
	}
	return h.Sum64()
}

// within returns the indexed names whose distance from a is between 1 and
// k (k at most 2), as lower-case strings.
func (e *editIndex) within(a []rune, k int) []string {
	n := len(a)
	seen := map[int32]bool{}
	var out []string
	var scratch editScratch
	check := func(k64 uint64) {
		for _, id := range e.keys[k64] {
			if seen[id] {
				continue
			}
			seen[id] = true
			if d := scratch.distance(a, e.lower[id], k); d > 0 && d <= k {
				out = append(out, string(e.lower[id]))
			}
		}
	}
	for m := max(n-k, minEditLength); m <= n+k; m++ {
		h := m / 2
		e.variants(m, 0, a[:h], check)
		e.variants(m, 1, a[n-(m-h):], check)
	}
	slices.Sort(out)
	return out
}

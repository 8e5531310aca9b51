package diffreview

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
	"github.com/mcpreg/mcpreg/pin"
)

// Rename pairing: a removed and an added tool are one renamed tool when
// their names are lookalikes, or when what they say is close enough.
const (
	// renameSameSchema is the description similarity that pairs tools
	// with the same input schema.
	renameSameSchema = 0.5
	// renameAnySchema pairs tools whatever their schemas.
	renameAnySchema = 0.8
)

// lookalikeKey is a tool name without its hidden characters, in its
// case-insensitive confusable skeleton: names with one key read alike.
func lookalikeKey(name string) string {
	var b strings.Builder
	last := 0
	for _, h := range findHidden(name) {
		b.WriteString(name[last:h.start])
		last = h.end
	}
	b.WriteString(name[last:])
	return skeletonKey(b.String())
}

// renamed is a removed tool paired with the added tool it became.
type renamed struct {
	from, to   string
	similarity float64
	lookalike  bool
}

// pairRenames pairs removed with added tools, best pairs first; each tool
// pairs at most once.
func pairRenames(removed, added []string, before, after map[string]projection) []renamed {
	type candidate struct {
		renamed
		score float64
	}
	var cs []candidate
	for _, r := range removed {
		for _, a := range added {
			pa, pb := before[r], after[a]
			sim := wordSimilarity(memberText(pa, "title")+" "+memberText(pa, "description"),
				memberText(pb, "title")+" "+memberText(pb, "description"))
			look := lookalikeKey(r) == lookalikeKey(a)
			sameSchema := pa.members != nil && pb.members != nil && string(pa.members["inputSchema"]) == string(pb.members["inputSchema"])
			if look || sim >= renameAnySchema || (sameSchema && sim >= renameSameSchema) {
				score := sim
				if look {
					score += 2 // a lookalike name pairs before any text match
				}
				cs = append(cs, candidate{renamed{r, a, sim, look}, score})
			}
		}
	}
	slices.SortStableFunc(cs, func(x, y candidate) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return strings.Compare(x.from+"\x00"+x.to, y.from+"\x00"+y.to)
	})
	used := map[string]bool{}
	var out []renamed
	for _, c := range cs {
		if used["-"+c.from] || used["+"+c.to] {
			continue
		}
		used["-"+c.from], used["+"+c.to] = true, true
		out = append(out, c.renamed)
	}
	return out
}

// memberText is the text of a string member of p ("" when absent).
func memberText(p projection, member string) string {
	if p.members == nil {
		return ""
	}
	v, ok := p.members[member]
	if !ok {
		return ""
	}
	return textOf(v)
}

// wordSimilarity is the Jaccard similarity of the lower-case word sets of
// a and b (1 when both have no words).
func wordSimilarity(a, b string) float64 {
	wa, wb := wordSet(a), wordSet(b)
	if len(wa) == 0 && len(wb) == 0 {
		return 1
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(wa)+len(wb)-inter)
}

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r > 0x7f && r != 0x2028 && r != 0x2029)
	}) {
		out[w] = true
	}
	return out
}

// renameChange describes one renamed tool: the old and new names, how
// alike they are, and the word diff of the description.
func renameChange(r renamed, before, after map[string]projection) Change {
	pa, pb := before[r.from], after[r.to]
	msg := fmt.Sprintf("tool %q renamed to %q (descriptions %.0f%% alike)", r.from, r.to, 100*r.similarity)
	if r.lookalike {
		msg = fmt.Sprintf("tool %q renamed to %q, a name that differs only by letter case, look-alike or hidden characters (%s): a host pinning by name sees a new tool",
			r.from, r.to, Visible(r.to))
	}
	c := Change{Class: ClassToolRenamed, Tool: r.to, Before: Visible(pa.text()), After: Visible(pb.text()), Message: msg}
	if da, db := memberText(pa, "description"), memberText(pb, "description"); da != db {
		c.Words = DescriptionDiff(da, db)
	}
	return c
}

// KindLookalikeName is the finding for a tool whose name differs only by
// letter case, look-alike or hidden characters from another tool of the
// same server: an approved one, or one beside it in the same list.
const KindLookalikeName = "tool.lookalike_name"

// LookalikeNames finds the tools whose names imitate an approved tool of
// the same server (approved: the tool names of its approved version) or
// another tool of the same list. A name equal to an approved one is no
// finding: that is the tool itself.
func LookalikeNames(approved []string, tools []pin.Tool) []finding.Finding {
	keys := map[string]string{} // lookalike key → an approved name
	for _, n := range approved {
		keys[lookalikeKey(n)] = n
	}
	seen := map[string]string{} // lookalike key → a name of this list
	var out []finding.Finding
	for _, t := range tools {
		key := lookalikeKey(t.Name)
		if other, ok := keys[key]; ok && other != t.Name && !slices.Contains(approved, t.Name) {
			out = append(out, lookalikeFinding(t.Name, other, "approved tool"))
		} else if other, ok := seen[key]; ok && other != t.Name {
			out = append(out, lookalikeFinding(t.Name, other, "tool"))
		}
		if _, ok := seen[key]; !ok {
			seen[key] = t.Name
		}
	}
	return out
}

func lookalikeFinding(name, other, what string) finding.Finding {
	return finding.Finding{Kind: KindLookalikeName, Severity: finding.High, Tool: name, Pointer: "/name", Evidence: other,
		Message: fmt.Sprintf("tool name %s differs from %s %q only by letter case, look-alike or hidden characters: a host or a model may take one for the other",
			Visible(name), what, other)}
}

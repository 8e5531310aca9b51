package diffreview

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpreg/mcpreg/finding"
)

// Finding kinds reported by Shadowing.
const (
	KindNameCollision         = "shadowing.name_collision"
	KindConfusableName        = "shadowing.confusable_name"
	KindMentionsForeignTool   = "shadowing.mentions_foreign_tool"
	KindShadowingInstructions = "shadowing.cross_tool_instruction"
)

// Shadowing compares a candidate server's tools with the tools of all
// approved servers (servers named like the candidate are skipped: they are
// its earlier versions) and reports exact name collisions, confusable names
// (same TR39 skeleton, or a small edit distance for names of five runes or
// more), descriptions that mention distinctive tool names found only on
// other servers, and text that tells the model how to use those tools.
// For many candidates, build an Index once and call Index.Shadowing.
func Shadowing(candidate ServerTools, approved []ServerTools) []finding.Finding {
	return NewIndex(approved).Shadowing(candidate)
}

// Shadowing reports what candidate shadows among the indexed servers.
func (x *Index) Shadowing(candidate ServerTools) []finding.Finding {
	x.mu.RLock()
	defer x.mu.RUnlock()
	sh := &shadowScan{x: x, cand: candidate, own: map[string]bool{}}
	for _, t := range candidate.Tools {
		sh.own[t.Name] = true
	}
	for _, t := range candidate.Tools {
		sh.names(t.Name)
		spans, _ := toolSpans(t.Raw)
		for _, sp := range spans {
			if !sp.name {
				sh.text(t.Name, sp)
			}
		}
	}
	if candidate.Instructions != nil {
		sh.text("", span{pointer: instructionsPointer, text: *candidate.Instructions})
	}
	return sh.result()
}

// shadowScan collects the findings of one Shadowing call.
type shadowScan struct {
	x    *Index
	cand ServerTools
	own  map[string]bool
	out  []finding.Finding
}

// foreign drops references to the candidate's own server.
func (sh *shadowScan) foreign(refs []toolRef) []toolRef {
	return slices.DeleteFunc(slices.Clone(refs), func(r toolRef) bool { return r.server == sh.cand.Server })
}

// maxListed is how many approved servers one candidate name's findings
// name per kind of match; the rest are counted in one more finding, so a
// generic name that thousands of approved servers share costs a page, not
// thousands of findings.
const maxListed = 20

// names checks one candidate tool name against the index.
func (sh *shadowScan) names(name string) {
	collisions := sh.listed(sh.x.byName[name], nil)
	for i, ref := range collisions {
		if i == maxListed {
			sh.add(KindNameCollision, collisionSeverity(name), name,
				fmt.Sprintf("tool name %q is also a tool of %d more approved servers", name, len(collisions)-maxListed), Visible(name))
			break
		}
		sh.add(KindNameCollision, collisionSeverity(name), name,
			fmt.Sprintf("tool name %q is also a tool of approved server %s", name, ref.server), Visible(name))
	}
	key := skeletonKey(name)
	lookalikes := sh.listed(sh.x.bySkeleton[key], func(r toolRef) bool { return r.name != name })
	near := sh.listed(sh.x.near(name), func(r toolRef) bool { return skeletonKey(r.name) != key })
	for i, ref := range append(lookalikes, near...) {
		if i == maxListed {
			sev := finding.Medium
			for _, r := range lookalikes[min(i, len(lookalikes)):] {
				if s, _ := confusableSeverity(name, r.name); s == finding.High {
					sev = finding.High
				}
			}
			sh.add(KindConfusableName, sev, name,
				fmt.Sprintf("tool name %q looks like, or is a small edit away from, %d more tools of approved servers",
					name, len(lookalikes)+len(near)-maxListed), Visible(name))
			break
		}
		if i < len(lookalikes) {
			sev, how := confusableSeverity(name, ref.name)
			sh.add(KindConfusableName, sev, name,
				fmt.Sprintf("tool name %q %s %q of approved server %s", name, how, ref.name, ref.server),
				Visible(name)+" vs "+Visible(ref.name)+describeRunes(name, ref.name))
			continue
		}
		sh.add(KindConfusableName, finding.Medium, name,
			fmt.Sprintf("tool name %q is a small edit away from %q of approved server %s", name, ref.name, ref.server),
			Visible(name)+" vs "+Visible(ref.name))
	}
}

// listed is refs of other servers that keep (nil: all) accepts, in order
// of server and name.
func (sh *shadowScan) listed(refs []toolRef, keep func(toolRef) bool) []toolRef {
	out := sh.foreign(refs)
	if keep != nil {
		out = slices.DeleteFunc(out, func(r toolRef) bool { return !keep(r) })
	}
	slices.SortFunc(out, func(a, b toolRef) int {
		return cmp.Or(strings.Compare(a.server, b.server), strings.Compare(a.name, b.name))
	})
	return out
}

// collisionSeverity rates an exact collision: high for a distinctive name,
// which one server is unlikely to share with another by chance; medium for
// a generic one such as "search", which often collides innocently.
func collisionSeverity(name string) finding.Severity {
	if distinctive(name) {
		return finding.High
	}
	return finding.Medium
}

// confusableSeverity rates two names with one skeleton: a case-only
// difference is medium, homoglyphs are high.
func confusableSeverity(a, b string) (finding.Severity, string) {
	if strings.EqualFold(a, b) {
		return finding.Medium, "differs only in case from"
	}
	return finding.High, "looks the same as"
}

// text checks one piece of model-visible text for references to foreign
// tools.
func (sh *shadowScan) text(tool string, sp span) {
	p := prepare(sp.text, false)
	instructed := map[string]bool{}
	for _, ref := range namedToolReferences(p.clean, triggerText(p.clean)) {
		if sh.own[ref.name] {
			continue
		}
		if servers := sh.servers(ref.name); len(servers) > 0 {
			instructed[ref.name] = true
			sh.addText(KindShadowingInstructions, finding.High, tool, sp.pointer,
				fmt.Sprintf("tells the model how to use %q, a tool of approved server %s", ref.name, serverList(servers)),
				p, ref.start, ref.end)
		}
	}
	for _, m := range mentions(p.clean) {
		if instructed[m.name] || sh.own[m.name] || !distinctive(m.name) {
			continue
		}
		if servers := sh.servers(m.name); len(servers) > 0 {
			sh.mention(tool, sp.pointer, p, m, servers)
		}
	}
}

// mention reports a distinctive foreign tool name; a sentence that also
// commands the model makes it an instruction.
func (sh *shadowScan) mention(tool, ptr string, p prepared, m mentionAt, servers []string) {
	lo, hi := sentenceAround(p.clean, m.start, m.end)
	if imperativeRe.MatchString(p.clean[lo:hi]) {
		sh.addText(KindShadowingInstructions, finding.High, tool, ptr,
			fmt.Sprintf("instructs the model about %q, a tool of approved server %s", m.name, serverList(servers)),
			p, lo, hi)
		return
	}
	sh.addText(KindMentionsForeignTool, finding.Medium, tool, ptr,
		fmt.Sprintf("mentions %q, a tool of approved server %s", m.name, serverList(servers)),
		p, m.start, m.end)
}

// servers lists the other approved servers that have a tool named name.
func (sh *shadowScan) servers(name string) []string {
	var out []string
	for _, ref := range sh.foreign(sh.x.byName[name]) {
		out = append(out, ref.server)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// serverList names servers for a message: the first maxListed, then how
// many more.
func serverList(servers []string) string {
	if len(servers) <= maxListed {
		return strings.Join(servers, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(servers[:maxListed], ", "), len(servers)-maxListed)
}

// imperativeRe marks a sentence that tells the model what to do.
var imperativeRe = re(`\b(?:always|never|must|make\s+sure|ensure|be\s+sure|instead|should|do\s+not|don'?t|before|after|whenever|redirect|change|replace|bcc|cc|forward|remember\s+to)\b`)

// add records a finding on a candidate tool's name.
func (sh *shadowScan) add(kind string, sev finding.Severity, tool, msg, evidence string) {
	sh.out = append(sh.out, finding.Finding{Kind: kind, Severity: sev, Tool: tool, Pointer: "/name",
		Message: msg, Evidence: evidence})
}

// addText records a finding whose evidence is p.clean[start:end].
func (sh *shadowScan) addText(kind string, sev finding.Severity, tool, ptr, msg string, p prepared, start, end int) {
	sh.out = append(sh.out, finding.Finding{Kind: kind, Severity: sev, Tool: tool, Pointer: ptr,
		Message: msg, Evidence: p.excerpt(start, end), Span: p.span(start, end)})
}

// result keeps the first finding per kind, tool, pointer and message, sorted.
func (sh *shadowScan) result() []finding.Finding {
	type key struct{ kind, tool, ptr, msg string }
	seen := map[key]bool{}
	out := sh.out[:0]
	for _, f := range sh.out {
		if k := (key{f.Kind, f.Tool, f.Pointer, f.Message}); !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	finding.Sort(out)
	return out
}

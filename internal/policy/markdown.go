package policy

import (
	"fmt"
	"strings"

	"github.com/celine-eu/governanced/internal/reportformat"
)

// Release paths of a block (seed: "Blocked until…"); each is self-clearing on
// the next push.
const (
	untilNotBreaking  = "the change is no longer breaking"
	untilNoReach      = "it no longer reaches the flagged object"
	untilAbsorbed     = "the downstream / schema absorbs it (update the test or restore the column)"
	untilRuleUnmet    = "the change no longer matches the rule"
	selfClearingNotes = "the gate re-runs on every push and lifts itself; no override needed."
)

// Markdown renders the "Policy verdict" section of spec §7.2: the decision, a
// one-line release path for a block, the fired hits grouped by decision (block
// first), the build and test sets and the notify intents. It names nodes only;
// the downstream blast radius belongs to the impact section above it.
func (r *Result) Markdown() string {
	v := r.Verdict
	var b strings.Builder
	if len(v.Hits) == 0 {
		fmt.Fprintf(&b, "### Policy verdict: %s — no rule fired (%d %s evaluated)\n", strings.ToUpper(v.Decision), v.EvaluatedRules, plural(v.EvaluatedRules, "rule", "rules"))
		return b.String()
	}
	fmt.Fprintf(&b, "### Policy verdict: %s\n", strings.ToUpper(v.Decision))
	if v.Decision == DecisionBlock {
		b.WriteString("⛔ **Blocked until** ")
		b.WriteString(r.releasePaths())
		b.WriteString(" — ")
		b.WriteString(selfClearingNotes)
		b.WriteString("\n")
	}
	for _, decision := range []string{DecisionBlock, DecisionWarn, DecisionAllow} {
		var group []Hit
		for _, h := range v.Hits {
			if h.Decision == decision {
				group = append(group, h)
			}
		}
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n**%s (%d)**\n", decision, len(group))
		for _, h := range group {
			subject := "whole PR"
			if h.ChangeModel != nil {
				subject = code(*h.ChangeModel + "." + *h.ChangeColumn)
			}
			fmt.Fprintf(&b, "- %s — %s", code(h.RuleID), subject)
			if len(h.MatchedReach) > 0 {
				names := make([]string, len(h.MatchedReach))
				for i, n := range h.MatchedReach {
					names[i] = code(n)
				}
				b.WriteString(" → ")
				b.WriteString(strings.Join(names, ", "))
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "\n**Build set:** %s · **Test set:** %s\n", nameList(v.BuildSet), nameList(v.TestSet))
	switch len(v.Notifications) {
	case 0:
	case 1:
		fmt.Fprintf(&b, "**Notify:** %s\n", notification(v.Notifications[0]))
	default:
		b.WriteString("**Notify:**\n")
		for _, n := range v.Notifications {
			fmt.Fprintf(&b, "- %s\n", notification(n))
		}
	}
	return b.String()
}

// releasePaths lists, per distinct blocking rule that fired, how its block
// clears, derived from the axes its predicate uses.
func (r *Result) releasePaths() string {
	var parts []string
	seen := map[string]bool{}
	for _, h := range r.Verdict.Hits {
		if h.Decision != DecisionBlock || seen[h.RuleID] {
			continue
		}
		seen[h.RuleID] = true
		rule := r.rule(h.RuleID)
		conds := untilRuleUnmet
		if rule != nil {
			conds = strings.Join(releaseConditions(rule.predicate), " / ")
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", conds, code(h.RuleID)))
	}
	return strings.Join(parts, "; ")
}

func (r *Result) rule(id string) *Rule {
	if r.Policy == nil {
		return nil
	}
	for _, rule := range r.Policy.Rules {
		if rule.ID == id {
			return rule
		}
	}
	return nil
}

func releaseConditions(p *predicate) []string {
	var breaking, reach, absorbed bool
	var walk func(*predicate)
	walk = func(p *predicate) {
		switch p.node {
		case nodeChange:
			if p.field == fieldBreaking || p.field == fieldSemantic {
				breaking = true
			}
		case nodeReach:
			reach = true
		case nodeStructural:
			if p.fact == factProvableTestBreak {
				absorbed = true
			} else {
				reach = true
			}
		}
		for _, c := range p.children {
			walk(c)
		}
	}
	walk(p)
	var out []string
	if breaking {
		out = append(out, untilNotBreaking)
	}
	if reach {
		out = append(out, untilNoReach)
	}
	if absorbed {
		out = append(out, untilAbsorbed)
	}
	if len(out) == 0 {
		out = append(out, untilRuleUnmet)
	}
	return out
}

func notification(n Notification) string {
	s := n.Channel + " " + code(n.Target)
	if n.Message != "" {
		s += " — " + reportformat.OneLine(n.Message)
	}
	return s
}

func nameList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = code(n)
	}
	return strings.Join(out, ", ")
}

// code renders a name as a Markdown code span that survives backticks in it.
func code(s string) string {
	s = reportformat.OneLine(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

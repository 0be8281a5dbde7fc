package policy

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Verdict is the policy_verdict object of spec §7.1, exactly its seven keys.
// Every list is non-nil so it encodes as [] rather than null.
type Verdict struct {
	Decision       string         `json:"decision"`
	Hits           []Hit          `json:"hits"`
	BuildSet       []string       `json:"build_set"`
	TestSet        []string       `json:"test_set"`
	Notifications  []Notification `json:"notifications"`
	EvaluatedRules int            `json:"evaluated_rules"`
	FiredRules     int            `json:"fired_rules"`
}

// Hit is one rule firing for one subject (spec §6.1). ChangeModel and
// ChangeColumn are nil for an aggregate hit.
type Hit struct {
	RuleID       string   `json:"rule_id"`
	Decision     string   `json:"decision"`
	ChangeModel  *string  `json:"change_model"`
	ChangeColumn *string  `json:"change_column"`
	MatchedReach []string `json:"matched_reach"`
	Actions      []string `json:"actions"`
}

// Notification is a notify intent for CI to route.
type Notification struct {
	Channel string `json:"channel"`
	Target  string `json:"target"`
	Message string `json:"message"`
}

// Diagnostics say which answers the fail-safe knobs decided rather than the
// data (spec §7.1: reported beside policy_verdict, never inside it).
type Diagnostics struct {
	Undecided []Undecided `json:"undecided"`
	Warnings  []string    `json:"warnings"`
}

// Undecided is one (rule, subject) whose predicate was unknown.
type Undecided struct {
	RuleID       string  `json:"rule_id"`
	ChangeModel  *string `json:"change_model"`
	ChangeColumn *string `json:"change_column"`
	// Cause is "missing" (absent meta, unresolved reach, unknown mechanism)
	// or "error" (operator/type mismatch).
	Cause string `json:"cause"`
	// Resolution is the knob that decided: fail_closed, fail_open or skip.
	Resolution string `json:"resolution"`
	Fired      bool   `json:"fired"`
}

// Result is one evaluation: the verdict and how it was reached.
type Result struct {
	Policy      *Policy
	Verdict     *Verdict
	Diagnostics *Diagnostics
}

// maxMatchedReach caps matched_reach in a hit (spec §6.1); {reach.count} is
// not capped.
const maxMatchedReach = 100

// Evaluate runs every rule of p against cs and combines the hits into one
// verdict (spec §5–§6). It is a pure function: the same inputs give the same
// result, with every order fixed. When ctx ends first it stops and returns
// ctx's error.
func Evaluate(ctx context.Context, p *Policy, cs *Changeset) (*Result, error) {
	v := &Verdict{
		Decision:       DecisionAllow,
		Hits:           []Hit{},
		Notifications:  []Notification{},
		EvaluatedRules: len(p.Rules),
	}
	diag := &Diagnostics{Undecided: []Undecided{}, Warnings: append([]string{}, p.Warnings...)}
	build := map[string]struct{}{}
	test := map[string]struct{}{}
	notified := map[Notification]struct{}{}
	fired := 0
	for _, r := range p.Rules {
		ruleFired := false
		fire := func(s *subject) {
			ruleFired = true
			hit, notes := r.hit(s, build, test)
			v.Hits = append(v.Hits, hit)
			if severity(hit.Decision) > severity(v.Decision) {
				v.Decision = hit.Decision
			}
			for _, n := range notes {
				if _, dup := notified[n]; !dup {
					notified[n] = struct{}{}
					v.Notifications = append(v.Notifications, n)
				}
			}
		}
		if r.Scope == ScopeAggregate {
			s := &subject{cs: cs, ctx: ctx}
			fires := r.resolve(s, p.Defaults, diag)
			if s.stopped {
				return nil, ctx.Err()
			}
			if fires {
				fire(s)
			}
		} else {
			for i, c := range cs.Changes {
				if i%256 == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
				s := &subject{cs: cs, change: c, ctx: ctx}
				if r.resolve(s, p.Defaults, diag) {
					fire(s)
				}
			}
		}
		if ruleFired {
			fired++
		}
	}
	v.FiredRules = fired
	v.BuildSet = sortedKeys(build)
	v.TestSet = sortedKeys(test)
	return &Result{Policy: p, Verdict: v, Diagnostics: diag}, nil
}

func severity(decision string) int {
	switch decision {
	case DecisionBlock:
		return 2
	case DecisionWarn:
		return 1
	}
	return 0
}

// resolve evaluates the rule's predicate for one subject and applies the
// fail-safe knobs to an unknown result, once, at rule level (D-23).
func (r *Rule) resolve(s *subject, defaults Defaults, diag *Diagnostics) bool {
	t := r.predicate.eval(s)
	switch t {
	case tTrue:
		return true
	case tFalse:
		return false
	}
	knob, cause := defaults.OnMissingMeta, "missing"
	if r.OnMissingMeta != nil {
		knob = *r.OnMissingMeta
	}
	if t == tError {
		knob, cause = defaults.OnError, "error"
		if r.OnError != nil {
			knob = *r.OnError
		}
	}
	fires := knob == FailClosed && r.Blocking()
	u := Undecided{RuleID: r.ID, Cause: cause, Resolution: knob.String(), Fired: fires}
	if s.change != nil {
		u.ChangeModel, u.ChangeColumn = &s.change.Model, &s.change.Column
	}
	diag.Undecided = append(diag.Undecided, u)
	return fires
}

// hit builds the hit of a fired rule and runs its actions.
func (r *Rule) hit(s *subject, build, test map[string]struct{}) (Hit, []Notification) {
	matched := s.matchedNames()
	h := Hit{
		RuleID:       r.ID,
		Decision:     r.Decision(),
		MatchedReach: matched,
		Actions:      make([]string, len(r.Actions)),
	}
	if len(matched) > maxMatchedReach {
		h.MatchedReach = matched[:maxMatchedReach]
	}
	subjects := s.cs.Changes // aggregate: every change is a subject of the set actions (D-27)
	var model, column string
	if s.change != nil {
		h.ChangeModel, h.ChangeColumn = &s.change.Model, &s.change.Column
		model, column = s.change.Model, s.change.Column
		subjects = []*Change{s.change}
	}
	var notes []Notification
	for i, a := range r.Actions {
		h.Actions[i] = a.Type
		switch a.Type {
		case ActionAddToBuild:
			a.addModels(subjects, build)
		case ActionAddToTestSet:
			a.addModels(subjects, test)
		case ActionNotify:
			notes = append(notes, Notification{
				Channel: a.Channel,
				Target:  a.Target,
				Message: interpolate(a.Message, r.ID, model, column, len(matched)),
			})
		}
	}
	return h, notes
}

// addModels is spec §6.2. A model reached by an unknown mechanism is kept under
// a mechanism filter: rebuilding too much is safe, too little is not (D-28).
func (a *Action) addModels(subjects []*Change, set map[string]struct{}) {
	for _, c := range subjects {
		if a.Include != IncludeSubject && c.Reach.Resolved {
			for _, m := range c.Reach.Models {
				if a.Mechanisms == nil || mechanismMayMatch(m.Mechanisms, a.Mechanisms) {
					set[m.Name] = struct{}{}
				}
			}
		}
		if a.Include != IncludeReached {
			set[c.Model] = struct{}{}
		}
	}
}

func mechanismMayMatch(have, filter []string) bool {
	if len(have) == 0 {
		return true
	}
	for _, m := range have {
		if slices.Contains(filter, m) || !slices.Contains(mechanisms, m) {
			return true
		}
	}
	return false
}

func dedupSorted(names []string) []string {
	out := append([]string{}, names...)
	sort.Strings(out)
	w := 0
	for i, n := range out {
		if i == 0 || n != out[w-1] {
			out[w] = n
			w++
		}
	}
	return out[:w]
}

func sortedKeys(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// placeholderToken is spec §6.3's TOKEN: [a-z_]+(\.[a-z_]+)?
func placeholderToken(s string) bool {
	dot := false
	segStart := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || (c >= 'a' && c <= 'z'):
			segStart = false
		case c == '.' && !dot && !segStart:
			dot, segStart = true, true
		default:
			return false
		}
	}
	return !segStart
}

// interpolate replaces the vocabulary of spec §6.3 in one left-to-right pass;
// anything else in braces stays as written (D-29) and replaced text is never
// rescanned.
func interpolate(msg, ruleID, model, column string, reachCount int) string {
	if !strings.Contains(msg, "{") {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		if msg[i] == '{' {
			if end := strings.IndexByte(msg[i+1:], '}'); end >= 0 {
				token := msg[i+1 : i+1+end]
				if placeholderToken(token) {
					if val, ok := vocabulary(token, ruleID, model, column, reachCount); ok {
						b.WriteString(val)
						i += end + 2
						continue
					}
				}
			}
		}
		b.WriteByte(msg[i])
		i++
	}
	return b.String()
}

func vocabulary(token, ruleID, model, column string, reachCount int) (string, bool) {
	switch token {
	case "change.model":
		return model, true
	case "change.column":
		return column, true
	case "reach.count":
		return strconv.Itoa(reachCount), true
	case "rule.id":
		return ruleID, true
	}
	return "", false
}

// placeholderWarnings flags placeholder-looking tokens outside the vocabulary:
// probably a typo, but not an error (spec §6.3).
func placeholderWarnings(file string, r *Rule) []string {
	var out []string
	for _, a := range r.Actions {
		if a.Type != ActionNotify {
			continue
		}
		msg := a.Message
		for i := strings.IndexByte(msg, '{'); i >= 0; {
			rest := msg[i+1:]
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				break
			}
			token := rest[:end]
			if placeholderToken(token) {
				if _, ok := vocabulary(token, "", "", "", 0); !ok {
					out = append(out, file+": rule "+strconv.Quote(r.ID)+": notify message placeholder {"+token+"} is not in the vocabulary ({change.model}, {change.column}, {reach.count}, {rule.id}) and stays as written")
				}
			}
			next := strings.IndexByte(rest, '{')
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return out
}

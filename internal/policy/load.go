package policy

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// maxPolicyBytes bounds what a policy may cost to parse; real policies are a
// few kilobytes.
const maxPolicyBytes = 4 << 20

// Load parses and validates a policy (YAML 1.1 typing, spec §2.3; JSON is
// YAML too). file names the policy in errors. Every defect is reported as an
// *Error carrying a spec §2.4 code, in the validation order of spec §2.4, so a
// file with several defects always reports the same first one.
func Load(data []byte, file string) (*Policy, error) {
	l := &loader{file: file}
	root, warnings, err := yaml11.ParseWithWarnings(data, yaml11.Limits{MaxBytes: maxPolicyBytes})
	if err != nil {
		e := &Error{Code: CodePolicyYAMLInvalid, File: file, Msg: "not valid YAML: " + err.Error()}
		var ye *yaml11.Error
		if errors.As(err, &ye) {
			e.Line, e.Column = ye.Line, ye.Column
			e.Msg = "not valid YAML: " + yamlLinePrefix.ReplaceAllString(ye.Msg, "")
		}
		return nil, e
	}
	if len(warnings) > 0 {
		// A key written twice silently drops one of its values; in a gate that
		// could be the rule someone relies on.
		w := warnings[0]
		return nil, &Error{Code: CodePolicyYAMLInvalid, File: file, Pos: w.Pos, Msg: w.Msg}
	}
	return l.policy(root)
}

// yamlLinePrefix is the parser's own "line N: " that Error already prints.
var yamlLinePrefix = regexp.MustCompile(`^line \d+: `)

type loader struct {
	file string
}

func (l *loader) fail(code string, n *yaml11.Node, path, format string, args ...any) *Error {
	if n != nil && n.Kind == yaml11.Timestamp {
		// Whatever was expected here, the fix is the same (spec §2.3).
		return l.quoteDates(n, path)
	}
	e := &Error{Code: code, File: l.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Pos = n.Pos
	}
	return e
}

// quoteDates is the error for a YAML timestamp anywhere in a policy: meta
// carries dates as strings, so an unquoted date could never compare equal.
func (l *loader) quoteDates(n *yaml11.Node, path string) *Error {
	return &Error{
		Code: CodeValueInvalid, File: l.file, Pos: n.Pos, Path: path,
		Msg: fmt.Sprintf("%s is a YAML date; quote it (%q) to use it as a string", n.Str, n.Str),
	}
}

// describe names a value for messages the way an author wrote it.
func describe(n *yaml11.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml11.Map:
		if len(n.Pairs) == 0 {
			return "an empty mapping"
		}
		return "a mapping"
	case yaml11.Seq:
		if len(n.Items) == 0 {
			return "an empty list"
		}
		return "a list"
	case yaml11.Null:
		return "null"
	case yaml11.String:
		return strconv.Quote(n.Str)
	}
	return fmt.Sprintf("%s %s", n.Kind, n.Str)
}

// checkKeys rejects any key not in allowed (D-06: a typo must not silently
// change a governance gate).
func (l *loader) checkKeys(n *yaml11.Node, path string, allowed ...string) error {
	for _, p := range n.Pairs {
		k := p.Key
		if k.Kind == yaml11.String && slices.Contains(allowed, k.Str) {
			continue
		}
		hint := ""
		if k.Kind == yaml11.Bool {
			hint = " (an unquoted yes/no/on/off is a boolean in YAML 1.1)"
		}
		where := path
		if where == "" {
			where = "top level"
		}
		return l.fail(CodeUnknownKey, k, joinPath(path, yaml11.KeyJSON(k)), "unknown key %q in %s%s; allowed: %s", yaml11.KeyJSON(k), where, hint, strings.Join(allowed, ", "))
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (l *loader) policy(root *yaml11.Node) (*Policy, error) {
	if root == nil || root.Kind != yaml11.Map {
		what := "empty"
		if root != nil && root.Kind != yaml11.Null {
			what = describe(root)
		}
		// Root shape comes first in the validation order, even for a date.
		e := &Error{Code: CodePolicyNotMapping, File: l.file, Msg: "a policy is a mapping with version and rules; this document is " + what}
		if root != nil {
			e.Pos = root.Pos
		}
		return nil, e
	}
	if err := l.checkKeys(root, "", "version", "defaults", "rules"); err != nil {
		return nil, err
	}
	p := &Policy{File: l.file}
	var err error
	if p.Version, err = l.version(root); err != nil {
		return nil, err
	}
	if p.Defaults, err = l.defaults(root.Get("defaults")); err != nil {
		return nil, err
	}
	rules := root.Get("rules")
	if rules == nil || rules.Kind != yaml11.Seq {
		n := rules
		if n == nil {
			n = root
		}
		return nil, l.fail(CodeRulesInvalid, n, "rules", "rules must be a list of rules (an empty list is allowed); found %s", describe(rules))
	}
	ids := make(map[string]int, len(rules.Items))
	p.Rules = make([]*Rule, 0, len(rules.Items))
	for i, rn := range rules.Items {
		r, err := l.rule(rn, i, ids)
		if err != nil {
			return nil, err
		}
		p.Rules = append(p.Rules, r)
		p.Warnings = append(p.Warnings, placeholderWarnings(l.file, r)...)
	}
	return p, nil
}

var versionString = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+){0,2}$`)

// version accepts 1, 1.2, "1", "1.2", "1.2.3" (D-07) and rejects any major but 1.
func (l *loader) version(root *yaml11.Node) (string, error) {
	n := root.Get("version")
	if n == nil {
		return "", l.fail(CodeVersionMissing, root, "version", "the version header is required (version: 1)")
	}
	var major float64
	text := n.Str
	switch n.Kind {
	case yaml11.Int:
		if n.BigInt != nil {
			return "", l.fail(CodeVersionUnsupported, n, "version", "version %s is not supported; this engine reads version 1", n.Str)
		}
		major = float64(n.Int)
		text = strconv.FormatInt(n.Int, 10)
	case yaml11.Float:
		if math.IsInf(n.Float, 0) || math.IsNaN(n.Float) || n.Float < 0 {
			return "", l.fail(CodeVersionUnsupported, n, "version", "version %s is not a version number", n.Str)
		}
		major = math.Trunc(n.Float)
	case yaml11.String:
		if !versionString.MatchString(n.Str) {
			return "", l.fail(CodeVersionUnsupported, n, "version", "version %q is not of the form MAJOR[.MINOR[.PATCH]]", n.Str)
		}
		m, _ := strconv.ParseFloat(strings.SplitN(n.Str, ".", 2)[0], 64)
		major = m
	default:
		return "", l.fail(CodeVersionUnsupported, n, "version", "version must be a number such as 1 or \"1.2\"; found %s", describe(n))
	}
	if major != 1 {
		return "", l.fail(CodeVersionUnsupported, n, "version", "policy version %s has major %v; this engine knows major 1 only", text, major)
	}
	return text, nil
}

func (l *loader) defaults(n *yaml11.Node) (Defaults, error) {
	var d Defaults
	if n == nil {
		return d, nil
	}
	if n.Kind != yaml11.Map {
		return d, l.fail(CodeValueInvalid, n, "defaults", "defaults must be a mapping with on_missing_meta and/or on_error; found %s", describe(n))
	}
	if err := l.checkKeys(n, "defaults", "on_missing_meta", "on_error"); err != nil {
		return d, err
	}
	var err error
	if k := n.Get("on_missing_meta"); k != nil {
		if d.OnMissingMeta, err = l.knob(k, "defaults.on_missing_meta"); err != nil {
			return d, err
		}
	}
	if k := n.Get("on_error"); k != nil {
		if d.OnError, err = l.knob(k, "defaults.on_error"); err != nil {
			return d, err
		}
	}
	return d, nil
}

func (l *loader) knob(n *yaml11.Node, path string) (Knob, error) {
	if n.Kind == yaml11.String {
		for i, name := range knobNames {
			if n.Str == name {
				return Knob(i), nil
			}
		}
	}
	return 0, l.fail(CodeFailSafeInvalid, n, path, "%s is not fail_closed, fail_open or skip", describe(n))
}

func (l *loader) rule(n *yaml11.Node, index int, ids map[string]int) (*Rule, error) {
	path := fmt.Sprintf("rules[%d]", index)
	if n.Kind != yaml11.Map {
		return nil, l.fail(CodeRulesInvalid, n, path, "a rule must be a mapping; found %s", describe(n))
	}
	if err := l.checkKeys(n, path, "id", "description", "scope", "predicate", "action", "on_missing_meta", "on_error"); err != nil {
		return nil, err
	}
	r := &Rule{Line: n.Pos.Line}
	idNode := n.Get("id")
	switch {
	case idNode == nil:
		return nil, l.fail(CodeRuleIDMissing, n, path, "every rule needs an id (a non-empty string)")
	case idNode.Kind != yaml11.String || idNode.Str == "":
		return nil, l.fail(CodeRuleIDMissing, idNode, path+".id", "a rule id must be a non-empty string; found %s (quote it)", describe(idNode))
	}
	r.ID = idNode.Str
	if first, dup := ids[r.ID]; dup {
		return nil, l.fail(CodeRuleIDDuplicate, idNode, path+".id", "rule id %q is already used by rules[%d]; ids must be unique", r.ID, first)
	}
	ids[r.ID] = index
	path = fmt.Sprintf("rules[%d] (%s)", index, r.ID)

	if d := n.Get("description"); d != nil {
		switch d.Kind {
		case yaml11.String:
			r.Description = d.Str
		case yaml11.Null:
		default:
			return nil, l.fail(CodeValueInvalid, d, path+".description", "description must be a string; found %s", describe(d))
		}
	}
	if s := n.Get("scope"); s != nil {
		switch {
		case s.Kind == yaml11.String && s.Str == "change":
			r.Scope = ScopeChange
		case s.Kind == yaml11.String && s.Str == "aggregate":
			r.Scope = ScopeAggregate
		default:
			return nil, l.fail(CodeScopeInvalid, s, path+".scope", "scope must be change or aggregate; found %s", describe(s))
		}
	}
	pn := n.Get("predicate")
	if pn == nil {
		return nil, l.fail(CodePredicateMalformed, n, path+".predicate", "every rule needs a predicate")
	}
	var err error
	if r.predicate, err = l.predicate(pn, path+".predicate", false); err != nil {
		return nil, err
	}
	if r.Actions, err = l.actions(n.Get("action"), n, path+".action"); err != nil {
		return nil, err
	}
	if k := n.Get("on_missing_meta"); k != nil {
		v, err := l.knob(k, path+".on_missing_meta")
		if err != nil {
			return nil, err
		}
		r.OnMissingMeta = &v
	}
	if k := n.Get("on_error"); k != nil {
		v, err := l.knob(k, path+".on_error")
		if err != nil {
			return nil, err
		}
		r.OnError = &v
	}
	return r, nil
}

var axes = []string{"all", "any", "not", "change", "meta", "reach", "structural"}

// predicate reads one node of a predicate tree: node shape, then axis, then
// leaf body keys, then field/op/value (spec §2.4). Inside reach.where only
// all/any/not and meta leaves are allowed (D-13).
func (l *loader) predicate(n *yaml11.Node, path string, inWhere bool) (*predicate, error) {
	if n.Kind != yaml11.Map {
		return nil, l.fail(CodePredicateMalformed, n, path, "a predicate node must be a mapping with exactly one of %s; found %s", strings.Join(axes, ", "), describe(n))
	}
	if len(n.Pairs) == 0 {
		return nil, l.fail(CodePredicateMalformed, n, path, "an empty predicate node; it needs exactly one of %s", strings.Join(axes, ", "))
	}
	for _, p := range n.Pairs {
		if p.Key.Kind != yaml11.String || !slices.Contains(axes, p.Key.Str) {
			return nil, l.fail(CodeUnknownAxis, p.Key, joinPath(path, yaml11.KeyJSON(p.Key)), "%q is not a predicate axis; use one of %s", yaml11.KeyJSON(p.Key), strings.Join(axes, ", "))
		}
	}
	if len(n.Pairs) > 1 {
		keys := make([]string, len(n.Pairs))
		for i, p := range n.Pairs {
			keys[i] = p.Key.Str
		}
		return nil, l.fail(CodePredicateMalformed, n, path, "a predicate node holds exactly one key, found %s; combine them under all: or any:", strings.Join(keys, " and "))
	}
	axis, body := n.Pairs[0].Key.Str, n.Pairs[0].Value
	path = joinPath(path, axis)
	switch axis {
	case "all", "any":
		if body.Kind != yaml11.Seq || len(body.Items) == 0 {
			return nil, l.fail(CodePredicateMalformed, body, path, "%s takes a non-empty list of predicates; found %s", axis, describe(body))
		}
		p := &predicate{node: nodeAll}
		if axis == "any" {
			p.node = nodeAny
		}
		for i, c := range body.Items {
			child, err := l.predicate(c, fmt.Sprintf("%s[%d]", path, i), inWhere)
			if err != nil {
				return nil, err
			}
			p.children = append(p.children, child)
		}
		return p, nil
	case "not":
		if body.Kind != yaml11.Map {
			return nil, l.fail(CodePredicateMalformed, body, path, "not takes a single predicate (a mapping, not a list); found %s", describe(body))
		}
		child, err := l.predicate(body, path, inWhere)
		if err != nil {
			return nil, err
		}
		return &predicate{node: nodeNot, children: []*predicate{child}}, nil
	}
	if inWhere && axis != "meta" {
		return nil, l.fail(CodePredicateMalformed, n.Pairs[0].Key, path, "reach.where is evaluated on each reached object, so it takes all/any/not and meta leaves only, not %s", axis)
	}
	if body.Kind != yaml11.Map {
		return nil, l.fail(CodePredicateMalformed, body, path, "the body of a %s leaf must be a mapping; found %s", axis, describe(body))
	}
	switch axis {
	case "change":
		return l.changeLeaf(body, path)
	case "meta":
		return l.metaLeaf(body, path)
	case "structural":
		return l.structuralLeaf(body, path)
	}
	return l.reachLeaf(body, path)
}

// choice reads body's key, a string naming one of choices: missing, the
// error says what the leaf needs; anything else, what the value is not
// ("%s is not " + not).
func choice[V any](l *loader, body *yaml11.Node, path, key string, choices map[string]V, code, needs, not string) (V, error) {
	var zero V
	n := body.Get(key)
	if n == nil {
		return zero, l.fail(code, body, path+"."+key, "%s", needs)
	}
	v, ok := choices[n.Str]
	if n.Kind != yaml11.String || !ok {
		return zero, l.fail(code, n, path+"."+key, "%s is not %s", describe(n), not)
	}
	return v, nil
}

func (l *loader) changeLeaf(body *yaml11.Node, path string) (*predicate, error) {
	if err := l.checkKeys(body, path, "field", "op", "value"); err != nil {
		return nil, err
	}
	field, err := choice(l, body, path, "field", changeFields, CodeUnknownField,
		"a change leaf needs field: kind, semantic, breaking, model or column", "a change field; use kind, semantic, breaking, model or column")
	if err != nil {
		return nil, err
	}
	p := &predicate{node: nodeChange, field: field}
	var enum []string
	switch field {
	case fieldKind:
		enum = changeKinds
	case fieldSemantic:
		enum = semantics
	}
	if err := l.operatorValue(body, path, p, enum); err != nil {
		return nil, err
	}
	return p, nil
}

func (l *loader) metaLeaf(body *yaml11.Node, path string) (*predicate, error) {
	if err := l.checkKeys(body, path, "key", "op", "value"); err != nil {
		return nil, err
	}
	k := body.Get("key")
	switch {
	case k == nil:
		return nil, l.fail(CodeMetaKeyInvalid, body, path+".key", "a meta leaf needs key: a dotted path such as governance.tier")
	case k.Kind != yaml11.String || k.Str == "":
		return nil, l.fail(CodeMetaKeyInvalid, k, path+".key", "a meta key must be a non-empty string; found %s", describe(k))
	}
	segs := strings.Split(k.Str, ".")
	for _, s := range segs {
		if s == "" {
			return nil, l.fail(CodeMetaKeyInvalid, k, path+".key", "meta key %q has an empty segment", k.Str)
		}
	}
	p := &predicate{node: nodeMeta, key: segs}
	if err := l.operatorValue(body, path, p, nil); err != nil {
		return nil, err
	}
	return p, nil
}

func (l *loader) structuralLeaf(body *yaml11.Node, path string) (*predicate, error) {
	if err := l.checkKeys(body, path, "fact"); err != nil {
		return nil, err
	}
	v, err := choice(l, body, path, "fact", facts, CodeUnknownFact,
		"a structural leaf needs fact: provable_test_break, touches_exposure or reaches_anything", "a structural fact; use provable_test_break, touches_exposure or reaches_anything")
	if err != nil {
		return nil, err
	}
	return &predicate{node: nodeStructural, fact: v}, nil
}

func (l *loader) reachLeaf(body *yaml11.Node, path string) (*predicate, error) {
	if err := l.checkKeys(body, path, "kind", "mechanism", "where", "min_count"); err != nil {
		return nil, err
	}
	kind, err := choice(l, body, path, "kind", reachKinds, CodeUnknownReachKind,
		"reach needs kind: model, column or exposure", "a reach kind; use model, column or exposure")
	if err != nil {
		return nil, err
	}
	p := &predicate{node: nodeReach, minCount: 1, reachKind: kind}
	if m := body.Get("mechanism"); m != nil {
		if kind == reachExposure {
			return nil, l.fail(CodeMechanismInvalid, m, path+".mechanism", "exposures carry no mechanism; drop the mechanism filter or scan kind: model/column")
		}
		if p.mechanisms, err = l.mechanismList(m, path+".mechanism"); err != nil {
			return nil, err
		}
	}
	if w := body.Get("where"); w != nil {
		if p.where, err = l.predicate(w, path+".where", true); err != nil {
			return nil, err
		}
	}
	if mc := body.Get("min_count"); mc != nil {
		if mc.Kind != yaml11.Int || mc.BigInt != nil || mc.Int < 1 || mc.Int > math.MaxInt32 {
			return nil, l.fail(CodeMinCountInvalid, mc, path+".min_count", "min_count must be an integer >= 1; found %s", describe(mc))
		}
		p.minCount = int(mc.Int)
	}
	return p, nil
}

func (l *loader) mechanismList(n *yaml11.Node, path string) ([]string, error) {
	if n.Kind != yaml11.Seq || len(n.Items) == 0 {
		return nil, l.fail(CodeMechanismInvalid, n, path, "mechanism must be a non-empty list of %s; found %s", strings.Join(mechanisms, ", "), describe(n))
	}
	out := make([]string, 0, len(n.Items))
	for i, it := range n.Items {
		if it.Kind != yaml11.String || !slices.Contains(mechanisms, it.Str) {
			return nil, l.fail(CodeUnknownMechanism, it, fmt.Sprintf("%s[%d]", path, i), "%s is not a mechanism; use %s", describe(it), strings.Join(mechanisms, ", "))
		}
		out = append(out, it.Str)
	}
	return out, nil
}

// operatorValue reads op and value of a change or meta leaf and checks the
// value's shape for the operator at load time (D-04). enum, when set, lists
// the values eq/ne/in/not_in may compare against.
func (l *loader) operatorValue(body *yaml11.Node, path string, p *predicate, enum []string) error {
	o := body.Get("op")
	if o == nil {
		return l.fail(CodeUnknownOperator, body, path+".op", "an op is required")
	}
	op, ok := operators[o.Str]
	if o.Kind != yaml11.String || !ok {
		return l.fail(CodeUnknownOperator, o, path+".op", "%s is not an operator", describe(o))
	}
	p.op = op
	v := body.Get("value")
	vpath := path + ".value"
	shape := op.shape()
	if shape == shapeNone {
		if v != nil {
			return l.fail(CodeValueInvalid, v, vpath, "%s takes no value; remove it", o.Str)
		}
		return nil
	}
	if v == nil {
		return l.fail(CodeValueInvalid, body, vpath, "%s needs a value", o.Str)
	}
	switch shape {
	case shapeAny:
		val, err := l.toValue(v, vpath)
		if err != nil {
			return err
		}
		p.value = val
	case shapeList:
		if v.Kind != yaml11.Seq {
			return l.fail(CodeValueInvalid, v, vpath, "%s needs a list value; found %s (write [%s])", o.Str, describe(v), v.Str)
		}
		val, err := l.toValue(v, vpath)
		if err != nil {
			return err
		}
		p.list = val.([]any)
	case shapeRegexp:
		if v.Kind != yaml11.String {
			return l.fail(CodeValueInvalid, v, vpath, "matches needs a string pattern; found %s", describe(v))
		}
		if _, err := regexp.Compile(v.Str); err != nil {
			return l.fail(CodeValueInvalid, v, vpath, "invalid RE2 pattern %q: %v", v.Str, err)
		}
		// Full match (spec §3.6): anchoring after the check keeps the wrapper
		// out of the author's error message.
		re, err := regexp.Compile(`^(?:` + v.Str + `)$`)
		if err != nil {
			return l.fail(CodeValueInvalid, v, vpath, "invalid RE2 pattern %q: %v", v.Str, err)
		}
		p.re = re
	case shapeNumber:
		switch {
		case v.Kind == yaml11.Int && v.BigInt != nil:
			p.value = bigToValue(v.BigInt)
		case v.Kind == yaml11.Int:
			p.value = v.Int
		case v.Kind == yaml11.Float && !math.IsNaN(v.Float):
			p.value = v.Float
		default:
			return l.fail(CodeValueInvalid, v, vpath, "%s needs a number; found %s", o.Str, describe(v))
		}
	}
	if enum != nil && (op == opEq || op == opNe || op == opIn || op == opNotIn) {
		check := []any{p.value}
		if shape == shapeList {
			check = p.list
		}
		for _, c := range check {
			s, ok := c.(string)
			if !ok || !slices.Contains(enum, s) {
				return l.fail(CodeValueInvalid, v, vpath, "%v is not one of %s", c, strings.Join(enum, ", "))
			}
		}
	}
	return nil
}

// toValue converts a YAML value into the engine's JSON form; timestamps are
// refused (spec §2.3).
func (l *loader) toValue(n *yaml11.Node, path string) (any, error) {
	switch n.Kind {
	case yaml11.Null:
		return nil, nil
	case yaml11.Bool:
		return n.Bool, nil
	case yaml11.Int:
		if n.BigInt != nil {
			return bigToValue(n.BigInt), nil
		}
		return n.Int, nil
	case yaml11.Float:
		return n.Float, nil
	case yaml11.String:
		return n.Str, nil
	case yaml11.Timestamp:
		return nil, l.quoteDates(n, path)
	case yaml11.Seq:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			v, err := l.toValue(it, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml11.Map:
		out := make(map[string]any, len(n.Pairs))
		for _, p := range n.Pairs {
			if p.Key.Kind == yaml11.Timestamp {
				return nil, l.quoteDates(p.Key, path)
			}
			k := yaml11.KeyJSON(p.Key)
			v, err := l.toValue(p.Value, joinPath(path, k))
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	}
	return nil, l.fail(CodeValueInvalid, n, path, "unsupported value %s", describe(n))
}

var (
	actionKeys = map[string][]string{
		ActionBlock:        {"type"},
		ActionWarn:         {"type"},
		ActionAddToBuild:   {"type", "include", "mechanism"},
		ActionAddToTestSet: {"type", "include", "mechanism"},
		ActionNotify:       {"type", "channel", "target", "message"},
	}
	actionTypes = []string{ActionBlock, ActionWarn, ActionAddToBuild, ActionAddToTestSet, ActionNotify}
	includes    = map[string]Include{"reached": IncludeReached, "subject": IncludeSubject, "both": IncludeBoth}
)

// actions reads `action`: one mapping or a non-empty list of them (D-14: no
// string shorthand).
func (l *loader) actions(n, rule *yaml11.Node, path string) ([]Action, error) {
	var items []*yaml11.Node
	switch {
	case n == nil:
		return nil, l.fail(CodeActionInvalid, rule, path, "every rule needs an action (for example action: {type: block})")
	case n.Kind == yaml11.Map:
		items = []*yaml11.Node{n}
		path += "[0]"
	case n.Kind == yaml11.Seq && len(n.Items) > 0:
		items = n.Items
	default:
		return nil, l.fail(CodeActionInvalid, n, path, "action must be a mapping such as {type: block} or a non-empty list of them; found %s", describe(n))
	}
	out := make([]Action, 0, len(items))
	for i, it := range items {
		ipath := path
		if n.Kind == yaml11.Seq {
			ipath = fmt.Sprintf("%s[%d]", path, i)
		}
		a, err := l.action(it, ipath)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (l *loader) action(n *yaml11.Node, path string) (Action, error) {
	var a Action
	if n.Kind != yaml11.Map {
		return a, l.fail(CodeActionInvalid, n, path, "an action must be a mapping with a type; found %s", describe(n))
	}
	t := n.Get("type")
	if t == nil {
		return a, l.fail(CodeActionInvalid, n, path+".type", "an action needs a type: %s", strings.Join(actionTypes, ", "))
	}
	keys, ok := actionKeys[t.Str]
	if t.Kind != yaml11.String || !ok {
		return a, l.fail(CodeUnknownActionType, t, path+".type", "%s is not an action type; use %s", describe(t), strings.Join(actionTypes, ", "))
	}
	a.Type = t.Str
	if err := l.checkKeys(n, path, keys...); err != nil {
		return a, err
	}
	switch a.Type {
	case ActionAddToBuild, ActionAddToTestSet:
		if inc := n.Get("include"); inc != nil {
			v, ok := includes[inc.Str]
			if inc.Kind != yaml11.String || !ok {
				return a, l.fail(CodeActionParamInvalid, inc, path+".include", "include must be reached, subject or both; found %s", describe(inc))
			}
			a.Include = v
		}
		if m := n.Get("mechanism"); m != nil {
			var err error
			if a.Mechanisms, err = l.mechanismList(m, path+".mechanism"); err != nil {
				return a, err
			}
		}
	case ActionNotify:
		for _, f := range []struct {
			key string
			dst *string
		}{{"channel", &a.Channel}, {"target", &a.Target}} {
			v := n.Get(f.key)
			if v == nil || v.Kind != yaml11.String || v.Str == "" {
				found := "nothing"
				if v != nil {
					found = describe(v)
				}
				return a, l.fail(CodeActionParamInvalid, orNode(v, n), path+"."+f.key, "notify needs a non-empty string %s; found %s", f.key, found)
			}
			*f.dst = v.Str
		}
		if m := n.Get("message"); m != nil {
			if m.Kind != yaml11.String {
				return a, l.fail(CodeActionParamInvalid, m, path+".message", "message must be a string; found %s", describe(m))
			}
			a.Message = m.Str
		}
	}
	return a, nil
}

func orNode(n, fallback *yaml11.Node) *yaml11.Node {
	if n != nil {
		return n
	}
	return fallback
}

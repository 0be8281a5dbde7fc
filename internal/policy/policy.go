package policy

import "regexp"

// Policy is a loaded, fully validated policy file (spec §3).
type Policy struct {
	// File is the name errors and reports use for the policy.
	File string
	// Version is the version header as written ("1", "1.2").
	Version  string
	Defaults Defaults
	Rules    []*Rule
	// Warnings are load-time hints that are not errors, such as a notify
	// placeholder outside the interpolation vocabulary.
	Warnings []string
}

// Defaults holds the policy-wide fail-safe knobs.
type Defaults struct {
	OnMissingMeta Knob
	OnError       Knob
}

// Knob says how an undecidable predicate resolves (spec §5.6).
type Knob uint8

const (
	FailClosed Knob = iota
	FailOpen
	Skip
)

var knobNames = [...]string{"fail_closed", "fail_open", "skip"}

func (k Knob) String() string { return knobNames[k] }

// Scope says whether a rule judges each change or the pull request as a whole.
type Scope uint8

const (
	ScopeChange Scope = iota
	ScopeAggregate
)

func (s Scope) String() string {
	if s == ScopeAggregate {
		return "aggregate"
	}
	return "change"
}

// Decisions, most severe first.
const (
	DecisionBlock = "block"
	DecisionWarn  = "warn"
	DecisionAllow = "allow"
)

// Rule is one predicate → actions mapping.
type Rule struct {
	ID          string
	Description string
	Scope       Scope
	Actions     []Action
	// OnMissingMeta and OnError are the rule's own knobs; nil defers to the
	// policy defaults.
	OnMissingMeta *Knob
	OnError       *Knob
	// Line is where the rule starts in the policy file.
	Line int

	predicate *predicate
}

// Blocking reports whether the rule has a block action: blocking rules fire on
// an undecided predicate under fail_closed, others stay silent (spec §5.6).
func (r *Rule) Blocking() bool { return r.Decision() == DecisionBlock }

// Decision is the rule's contribution when it fires (spec §3.2).
func (r *Rule) Decision() string {
	d := DecisionAllow
	for _, a := range r.Actions {
		switch a.Type {
		case ActionBlock:
			return DecisionBlock
		case ActionWarn:
			d = DecisionWarn
		}
	}
	return d
}

// Action types (spec §3.7).
const (
	ActionBlock        = "block"
	ActionWarn         = "warn"
	ActionAddToBuild   = "add-to-build-set"
	ActionAddToTestSet = "add-to-test-set"
	ActionNotify       = "notify"
)

// Include says which models an add-to-*-set action contributes.
type Include uint8

const (
	IncludeReached Include = iota
	IncludeSubject
	IncludeBoth
)

// Action is one effect of a fired rule. Only the fields of its Type are set.
type Action struct {
	Type       string
	Include    Include
	Mechanisms []string // add-to-*-set filter; nil = every reached model
	Channel    string
	Target     string
	Message    string
}

// predicate is one node of a rule's predicate tree.
type predicate struct {
	node     nodeKind
	children []*predicate // all, any, not

	// change leaf
	field changeField
	// meta leaf
	key []string
	// change and meta leaves
	op    operator
	value any
	list  []any
	re    *regexp.Regexp

	fact fact // structural leaf

	// reach leaf
	reachKind  reachKind
	mechanisms []string
	where      *predicate
	minCount   int
}

type nodeKind uint8

const (
	nodeAll nodeKind = iota
	nodeAny
	nodeNot
	nodeChange
	nodeMeta
	nodeReach
	nodeStructural
)

type changeField uint8

const (
	fieldKind changeField = iota
	fieldSemantic
	fieldBreaking
	fieldModel
	fieldColumn
)

var changeFields = map[string]changeField{
	"kind": fieldKind, "semantic": fieldSemantic, "breaking": fieldBreaking, "model": fieldModel, "column": fieldColumn,
}

type fact uint8

const (
	factProvableTestBreak fact = iota
	factTouchesExposure
	factReachesAnything
)

var facts = map[string]fact{
	"provable_test_break": factProvableTestBreak,
	"touches_exposure":    factTouchesExposure,
	"reaches_anything":    factReachesAnything,
}

type reachKind uint8

const (
	reachModel reachKind = iota
	reachColumn
	reachExposure
)

var reachKinds = map[string]reachKind{"model": reachModel, "column": reachColumn, "exposure": reachExposure}

type operator uint8

const (
	opExists operator = iota
	opAbsent
	opIsTrue
	opIsFalse
	opEq
	opNe
	opIn
	opNotIn
	opMatches
	opIntersects
	opSubsetOf
	opNotSubsetOf
	opSupersetOf
	opGt
	opGe
	opLt
	opLe
)

var operators = map[string]operator{
	"exists": opExists, "absent": opAbsent, "is_true": opIsTrue, "is_false": opIsFalse,
	"eq": opEq, "ne": opNe, "in": opIn, "not_in": opNotIn, "matches": opMatches,
	"intersects": opIntersects, "subset_of": opSubsetOf, "not_subset_of": opNotSubsetOf, "superset_of": opSupersetOf,
	"gt": opGt, "ge": opGe, "lt": opLt, "le": opLe,
}

// valueShape is what an operator requires of the policy's `value` (spec §3.6).
type valueShape uint8

const (
	shapeNone   valueShape = iota // presence operators: value must be omitted
	shapeAny                      // eq/ne: any JSON value, null included
	shapeList                     // in/not_in and the set operators
	shapeRegexp                   // matches
	shapeNumber                   // gt/ge/lt/le
)

func (o operator) shape() valueShape {
	switch o {
	case opExists, opAbsent, opIsTrue, opIsFalse:
		return shapeNone
	case opEq, opNe:
		return shapeAny
	case opMatches:
		return shapeRegexp
	case opGt, opGe, opLt, opLe:
		return shapeNumber
	}
	return shapeList
}

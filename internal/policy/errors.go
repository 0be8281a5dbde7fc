package policy

import (
	"fmt"
	"strings"

	"github.com/celine-eu/governanced/internal/textpos"
)

// Error codes of spec §2.4 (policy) and of the changeset reader. They are
// stable: callers and the conformance cases branch on them, never on Msg.
const (
	CodePolicyNotFound     = "policy_not_found"
	CodePolicyYAMLInvalid  = "policy_yaml_invalid"
	CodePolicyNotMapping   = "policy_not_mapping"
	CodeUnknownKey         = "unknown_key"
	CodeVersionMissing     = "version_missing"
	CodeVersionUnsupported = "version_unsupported"
	CodeRulesInvalid       = "rules_invalid"
	CodeRuleIDMissing      = "rule_id_missing"
	CodeRuleIDDuplicate    = "rule_id_duplicate"
	CodeScopeInvalid       = "scope_invalid"
	CodePredicateMalformed = "predicate_malformed"
	CodeUnknownAxis        = "unknown_axis"
	CodeUnknownOperator    = "unknown_operator"
	CodeUnknownField       = "unknown_field"
	CodeUnknownFact        = "unknown_fact"
	CodeUnknownReachKind   = "unknown_reach_kind"
	CodeUnknownMechanism   = "unknown_mechanism"
	CodeMechanismInvalid   = "mechanism_invalid"
	CodeMinCountInvalid    = "min_count_invalid"
	CodeMetaKeyInvalid     = "meta_key_invalid"
	CodeValueInvalid       = "value_invalid"
	CodeActionInvalid      = "action_invalid"
	CodeUnknownActionType  = "unknown_action_type"
	CodeActionParamInvalid = "action_param_invalid"
	CodeFailSafeInvalid    = "fail_safe_invalid"

	// CodeChangesetInvalid is any changeset the engine refuses to evaluate
	// (spec §4.2: wrong version, unknown kind, duplicate subject, bad JSON).
	CodeChangesetInvalid = "changeset_invalid"
)

// Error is a policy or changeset the engine refuses. File and Pos say where
// (Line 0 when unknown); Path says which element, in the policy's own
// terms (`rules[2] (pii-gate).predicate.all[1].meta.op`).
type Error struct {
	Code string
	File string
	textpos.Pos
	Path string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(textpos.Prefix(e.File, e.Pos))
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	fmt.Fprintf(&b, " [%s]", e.Code)
	return b.String()
}

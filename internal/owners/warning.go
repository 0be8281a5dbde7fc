package owners

import (
	"github.com/celine-eu/governanced/internal/textpos"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// Warning codes.
const (
	// WarnDuplicateID: an id written twice in one file; the later entry wins.
	WarnDuplicateID = "duplicate-id"
	// WarnAliasShadowsID: an alias equal to an owner id; the alias is ignored.
	WarnAliasShadowsID = "alias-shadows-id"
	// WarnAliasClaimed: an alias two owners claim; the first keeps it.
	WarnAliasClaimed = "alias-claimed"
	// WarnOverridden: an entry replaced by a later registry file — the designed
	// override of a materialised registry, information rather than a problem.
	WarnOverridden = "overridden"
	// WarnDuplicateKey: a YAML mapping key written twice; the later value wins.
	WarnDuplicateKey = "duplicate-key"
	// WarnUnresolvedOwner: an ownership name that resolves to no owner, kept as
	// written (lenient resolution).
	WarnUnresolvedOwner = "unresolved-owner"
)

// Warning is something the registry accepted but a person should hear about.
type Warning struct {
	Code string
	File string
	Pos  yaml11.Pos // zero when there is no position
	Msg  string     // the reference's wording
}

// String is "file:line:col: message".
func (w Warning) String() string {
	return textpos.Prefix(w.File, w.Pos) + w.Msg
}

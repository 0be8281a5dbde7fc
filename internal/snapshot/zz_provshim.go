package snapshot

import "github.com/celine-eu/governanced/internal/governance"

// TEMPORARY until the merge records provenance.
func provenanceJSON(r *governance.Rule, dst []byte) []byte { return append(dst, "{}"...) }

const (
	LayerDefaults        = "defaults"
	LayerSource          = "source"
	LayerOverlayDefaults = "overlay.defaults"
	LayerOverlaySource   = "overlay.source"
)

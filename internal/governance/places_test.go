package governance

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlacesRoundTrip: a rule's places decode to the positions and entries
// encoded, whatever their lines' order and distance, their layers' slots
// (a slot of its own byte from 3 up) and their columns; an extra key keeps
// its place.
func TestPlacesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		ps   []position
		es   []pathPosition
	}{
		{"none", nil, nil},
		{"one field", []position{{Line: 7, Column: 3, field: FieldTitle, layer: 1}}, nil},
		{"lines up and down", []position{
			{Line: 1400, Column: 5, field: FieldTitle, layer: 1},
			{Line: 1398, Column: 5, field: FieldExpose, layer: 1},
			{Line: 1, Column: 1, field: FieldLicense, layer: 2},
			{Line: math.MaxInt32, Column: math.MaxInt32, field: FieldExtra, layer: 255},
		}, []pathPosition{
			{Line: 0, Column: 0, code: pathDcatTemporalReset, layer: 0}, // a mark
			{Line: 12, Column: 9, code: pathDSPurpose, layer: 3},
			{Line: 13, Column: 9, code: pathExtra, index: 1 << 20, layer: 4},
			{Line: 2, Column: 300, code: pathExtra, index: 0, layer: 1},
		}},
		{"every slot", []position{
			{Line: 10, Column: 1, field: FieldTitle, layer: 0},
			{Line: 11, Column: 1, field: FieldDescription, layer: 1},
			{Line: 12, Column: 1, field: FieldExpose, layer: 2},
			{Line: 13, Column: 1, field: FieldLicense, layer: 3},
			{Line: 14, Column: 1, field: FieldOwnership, layer: 4},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Rule{places: newPlaces(tc.ps, tc.es)}
			ps, es := r.decode(nil, nil)
			if diff := cmp.Diff(tc.ps, ps, cmp.AllowUnexported(position{})); diff != "" {
				t.Errorf("positions (-encoded +decoded):\n%s", diff)
			}
			if diff := cmp.Diff(tc.es, es, cmp.AllowUnexported(pathPosition{})); diff != "" {
				t.Errorf("entries (-encoded +decoded):\n%s", diff)
			}
			if got := r.countPaths(); got != len(tc.es) {
				t.Errorf("countPaths = %d, want %d", got, len(tc.es))
			}
			for _, p := range tc.ps {
				if got := r.pos(p.field); got != p {
					t.Errorf("pos(%v) = %+v, want %+v", p.field, got, p)
				}
			}
		})
	}
}

package governance

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/celine-eu/governanced/internal/jsonstring"
)

func TestMatchJSON(t *testing.T) {
	tests := []struct {
		m    Match
		want string
	}{
		{Match{Kind: MatchDefaults}, `{"kind":"defaults"}`},
		{Match{Kind: MatchExact, Pattern: "silver.meteo"}, `{"kind":"exact","pattern":"silver.meteo"}`},
		{Match{Kind: MatchGlob, Pattern: "silver.*"}, `{"kind":"glob","pattern":"silver.*"}`},
		{Match{Kind: MatchExact, Pattern: "a\"b\\c\n\u00e9"}, `{"kind":"exact","pattern":"a\"b\\c\né"}`},
	}
	for _, tt := range tests {
		got := string(tt.m.AppendJSON([]byte("x")))
		if diff := cmp.Diff("x"+tt.want, got); diff != "" {
			t.Errorf("%+v: AppendJSON (-want +got):\n%s", tt.m, diff)
		}
		pattern := jsonstring.Append(nil, tt.m.Pattern)
		if got := string(tt.m.AppendJSONPatternAs([]byte("x"), pattern)); got != "x"+tt.want {
			t.Errorf("%+v: AppendJSONPatternAs = %s, want x%s", tt.m, got, tt.want)
		}
		var round struct{ Kind, Pattern string }
		if err := json.Unmarshal([]byte(tt.want), &round); err != nil || round.Pattern != tt.m.Pattern || round.Kind != tt.m.Kind.String() {
			t.Errorf("%s does not decode to %+v: %+v, %v", tt.want, tt.m, round, err)
		}
	}
}

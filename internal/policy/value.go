package policy

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"

	"github.com/celine-eu/governanced/internal/jsonvalue"
)

// Values the engine compares are JSON values in one canonical Go form, whether
// they come from a changeset (JSON) or a policy (YAML 1.1): nil, bool, int64,
// float64, string, []any, map[string]any. Integers are kept exact where they fit
// so that an id like 9007199254740993 does not collide with its neighbour.

// normalize turns a decoded JSON tree (json.Number leaves from UseNumber) into
// the canonical form.
func normalize(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		// Beyond float range ParseFloat gives ±Inf (or 0): clamp so the value
		// still orders correctly and can be written back as JSON.
		f, _ := strconv.ParseFloat(string(t), 64)
		return math.Max(-math.MaxFloat64, math.Min(f, math.MaxFloat64))
	case []any:
		for i := range t {
			t[i] = normalize(t[i])
		}
		return t
	case map[string]any:
		for k := range t {
			t[k] = normalize(t[k])
		}
		return t
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return int64(t)
		}
		return t
	case int:
		return int64(t)
	}
	return v
}

func bigToValue(b *big.Int) any {
	if b.IsInt64() {
		return b.Int64()
	}
	f, _ := new(big.Float).SetInt(b).Float64()
	return f
}

// asNumber reports v as a float64 when it is a JSON number. Booleans are not
// numbers (spec §5.2).
func asNumber(v any) (float64, bool) {
	switch t := v.(type) {
	case int64:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

// compareNumbers orders two JSON numbers exactly when both are integers.
func compareNumbers(a, b any) int {
	ai, aInt := a.(int64)
	bi, bInt := b.(int64)
	if aInt && bInt {
		switch {
		case ai < bi:
			return -1
		case ai > bi:
			return 1
		}
		return 0
	}
	af, _ := asNumber(a)
	bf, _ := asNumber(b)
	switch {
	case af < bf:
		return -1
	case af > bf:
		return 1
	}
	return 0
}

// truthy is D-20: null, false, 0, 0.0, "", [] and {} are falsy; the string
// "false" is truthy.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case int64:
		return t != 0
	case float64:
		return t != 0
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if jsonvalue.Equal(x, v) {
			return true
		}
	}
	return false
}

// lookupPath walks a dotted path through nested objects (spec §5.1): a hop
// through anything but an object, or an absent key, is missing. A present
// null is present.
func lookupPath(root map[string]any, path []string) (any, bool) {
	if root == nil {
		return nil, false
	}
	var cur any = root
	for _, seg := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = obj[seg]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// NormalizeValue brings a JSON value decoded with json.Decoder.UseNumber into
// the engine's canonical form (int64 or float64 numbers). Producers of a
// Changeset other than ReadChangeset, such as the dbt builder, pass meta
// through it so that comparisons behave as for a changeset read from JSON.
func NormalizeValue(v any) any { return normalize(v) }

package jsonvalue

import (
	"encoding/json"
	"math"
	"testing"
)

// TestEqual holds each pair equal, or not, both ways round.
func TestEqual(t *testing.T) {
	equal := [][2]any{
		{nil, nil},
		{true, true},
		{int64(1), float64(1)},
		{int64(1), json.Number("1.0")},
		{int64(9007199254740993), json.Number("9007199254740993")},
		{"a", "a"},
		{[]any{int64(1), "x"}, []any{float64(1), "x"}},
		{map[string]any{"a": int64(1)}, map[string]any{"a": float64(1)}},
	}
	unequal := [][2]any{
		{nil, false},
		{true, int64(1)},
		{json.Number("2"), float64(2.5)},
		{int64(9007199254740993), int64(9007199254740992)}, // one float64
		{math.NaN(), math.NaN()},
		{"1", int64(1)},
		{[]any{int64(1)}, []any{int64(1), int64(2)}},
		{map[string]any{"a": nil}, map[string]any{"b": nil}},
		{map[string]any{}, []any{}},
		{int32(1), int32(1)}, // not a JSON value
	}
	for want, pairs := range map[bool][][2]any{true: equal, false: unequal} {
		for _, p := range pairs {
			if got := Equal(p[0], p[1]); got != want {
				t.Errorf("Equal(%#v, %#v) = %v, want %v", p[0], p[1], got, want)
			}
			if got := Equal(p[1], p[0]); got != want {
				t.Errorf("Equal(%#v, %#v) = %v, want %v", p[1], p[0], got, want)
			}
		}
	}
}

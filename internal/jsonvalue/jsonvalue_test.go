package jsonvalue

import (
	"encoding/json"
	"math"
	"testing"
)

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{nil, nil, true},
		{nil, false, false},
		{true, true, true},
		{true, int64(1), false},
		{int64(1), float64(1), true},
		{int64(1), json.Number("1.0"), true},
		{json.Number("2"), float64(2.5), false},
		{int64(9007199254740993), int64(9007199254740992), false},
		{int64(9007199254740993), json.Number("9007199254740993"), true},
		{math.NaN(), math.NaN(), false},
		{"a", "a", true},
		{"1", int64(1), false},
		{[]any{int64(1), "x"}, []any{float64(1), "x"}, true},
		{[]any{int64(1)}, []any{int64(1), int64(2)}, false},
		{map[string]any{"a": int64(1)}, map[string]any{"a": float64(1)}, true},
		{map[string]any{"a": nil}, map[string]any{"b": nil}, false},
		{map[string]any{}, []any{}, false},
		{int32(1), int32(1), false}, // not a JSON value
	}
	for _, tc := range tests {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := Equal(tc.b, tc.a); got != tc.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

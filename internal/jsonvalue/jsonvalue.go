// Package jsonvalue compares JSON values as Go decodes them: nil, bool,
// string, int64, float64, json.Number, []any and map[string]any. The policy
// engine compares a changeset's values with a policy's by it, and the
// schema check an instance's with an enum's.
package jsonvalue

import (
	"encoding/json"
	"strconv"
)

// Equal is JSON deep equality: numbers by value (1 equals 1.0, two
// integers exactly however large), a boolean never equals a number, NaN
// equals nothing, lists element by element, objects by key set and value.
// A value of any other type equals nothing.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	}
	na, okA := asNumber(a)
	nb, okB := asNumber(b)
	if !okA || !okB {
		return false
	}
	if na.isInt && nb.isInt {
		return na.i == nb.i
	}
	return na.f == nb.f // false for NaN
}

// number is a JSON number: an integer that fits 64 bits exactly, anything
// else as a float.
type number struct {
	i     int64
	f     float64
	isInt bool
}

func asNumber(v any) (number, bool) {
	switch n := v.(type) {
	case int64:
		return number{i: n, f: float64(n), isInt: true}, true
	case float64:
		return number{f: n}, true
	case json.Number:
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return number{i: i, f: float64(i), isInt: true}, true
		}
		f, err := strconv.ParseFloat(string(n), 64)
		return number{f: f}, err == nil
	}
	return number{}, false
}

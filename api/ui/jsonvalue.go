package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// jsonValue is a JSON value with its members in document order, which
// encoding/json's maps lose: a rule renders its fields in the canonical
// order (governance-format.md §13), and a page shows them in that order.
type jsonValue struct {
	Kind    jsonKind
	Text    string // a string, number or bool as written (JSON text for numbers)
	Items   []jsonValue
	Keys    []string // an object's member names, in order, beside Items
	Encoded string   // the value as compact JSON
}

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// parseJSON reads one JSON value, keeping members in order.
func parseJSON(data []byte) (jsonValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readJSON(dec, data)
	if err != nil {
		return jsonValue{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jsonValue{}, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func readJSON(dec *json.Decoder, data []byte) (jsonValue, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return jsonValue{}, err
	}
	var v jsonValue
	switch t := tok.(type) {
	case nil:
		v.Kind = jsonNull
	case bool:
		v.Kind, v.Text = jsonBool, fmt.Sprint(t)
	case json.Number:
		v.Kind, v.Text = jsonNumber, t.String()
	case string:
		v.Kind, v.Text = jsonString, t
	case json.Delim:
		object := t == '{'
		v.Kind = jsonArray
		if object {
			v.Kind = jsonObject
		}
		for dec.More() {
			if object {
				k, err := dec.Token()
				if err != nil {
					return jsonValue{}, err
				}
				v.Keys = append(v.Keys, k.(string))
			}
			item, err := readJSON(dec, data)
			if err != nil {
				return jsonValue{}, err
			}
			v.Items = append(v.Items, item)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return jsonValue{}, err
		}
	}
	v.Encoded = string(bytes.TrimLeft(data[start:dec.InputOffset()], " \t\r\n,:"))
	return v, nil
}

// get is an object's member, or nil.
func (v *jsonValue) get(key string) *jsonValue {
	for i, k := range v.Keys {
		if k == key {
			return &v.Items[i]
		}
	}
	return nil
}

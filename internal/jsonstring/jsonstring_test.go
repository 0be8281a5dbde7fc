package jsonstring

import (
	"bytes"
	"encoding/json"
	"testing"
)

func encodingJSON(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

var jsonStringSeeds = []string{
	"", "plain", `quote " and \ backslash`, "<a href='x'>&amp;</a>",
	"\b\f\n\r\t\x00\x01\x1f\x7f", "héllo wörld ✓ 𝄞", "\u2028\u2029", "bad \xff\xfe utf-8 \xc3",
	"datasets.ds_dev_gold.meters_*", "tab\tin\tthe\tmiddle",
}

// TestAppendMatchesEncodingJSON holds the fast writer to the bytes
// encoding/json writes, so that a body reads the same whichever wrote it.
func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, s := range jsonStringSeeds {
		if got, want := Append(nil, s), encodingJSON(s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
	for b := 0; b < 256; b++ {
		s := "x" + string([]byte{byte(b)}) + "y"
		if got, want := Append(nil, s), encodingJSON(s); !bytes.Equal(got, want) {
			t.Errorf("byte %#x: got %s, want %s", b, got, want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Append(nil, s), encodingJSON(s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	})
}

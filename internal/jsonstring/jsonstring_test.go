package jsonstring

import (
	"bytes"
	"encoding/json"
	"strings"
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

// TestAppendEveryByteInWords puts every byte at every place of a string
// long enough to be read eight bytes at a time, so that the word test meets
// it in each of a word's lanes, with plain bytes around it.
func TestAppendEveryByteInWords(t *testing.T) {
	const plain = "abcdefghijklmnopqrstuvwx"
	for b := 0; b < 256; b++ {
		for at := range len(plain) {
			s := plain[:at] + string([]byte{byte(b)}) + plain[at:]
			if got, want := Append(nil, s), encodingJSON(s); !bytes.Equal(got, want) {
				t.Errorf("byte %#x at %d: got %s, want %s", b, at, got, want)
			}
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"key", "datasets.ds_app_000_silver.pv_00100_15m"},
		{"prose", strings.Repeat("under energy the normalised values consent partners ", 5)},
		{"escapes", strings.Repeat("a \"quoted\" line\n", 10)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 1024)
			b.SetBytes(int64(len(bc.s)))
			for b.Loop() {
				buf = Append(buf[:0], bc.s)
			}
		})
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

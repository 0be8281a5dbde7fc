package uvarint

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestDecode: every value encoding/binary writes reads back, with its
// length, from a string and from bytes, whatever follows it.
func TestDecode(t *testing.T) {
	for _, x := range []uint64{0, 1, 127, 128, 300, 1<<14 - 1, 1 << 14, math.MaxUint32, math.MaxUint64} {
		b := binary.AppendUvarint(nil, x)
		n := len(b)
		b = append(b, 0xff, 0x01) // what follows is not read
		if got, m := Decode(b); got != x || m != n {
			t.Errorf("Decode(bytes of %d) = %d, %d; want %d, %d", x, got, m, x, n)
		}
		if got, m := Decode(string(b)); got != x || m != n {
			t.Errorf("Decode(string of %d) = %d, %d; want %d, %d", x, got, m, x, n)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(uint64(0), []byte{})
	f.Add(uint64(math.MaxUint64), []byte{0x80})
	f.Fuzz(func(t *testing.T, x uint64, tail []byte) {
		b := append(binary.AppendUvarint(nil, x), tail...)
		want, n := binary.Uvarint(b)
		if got, m := Decode(string(b)); got != want || m != n {
			t.Errorf("Decode(%x) = %d, %d; binary.Uvarint says %d, %d", b, got, m, want, n)
		}
	})
}

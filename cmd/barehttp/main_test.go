package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHeaderFlag(t *testing.T) {
	cases := []struct {
		in      string
		want    [2]string
		wantErr bool
	}{
		{"Etag: \"sha256:ab\"", [2]string{"Etag", `"sha256:ab"`}, false},
		{"Cache-Control:no-cache", [2]string{"Cache-Control", "no-cache"}, false},
		{"X-Empty:", [2]string{"X-Empty", ""}, false},
		{"no colon", [2]string{}, true},
		{": no name", [2]string{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			var f headerFlag
			err := f.Set(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Set(%q) error %v, want error %v", tc.in, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if diff := cmp.Diff(headerFlag{tc.want}, f); diff != "" {
				t.Errorf("Set(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestFixedBody(t *testing.T) {
	for _, size := range []int{0, 14, 15, 1085} {
		if got := len(fixedBody(size)); got != max(size, 14) {
			t.Errorf("fixedBody(%d) is %d bytes", size, got)
		}
	}
}

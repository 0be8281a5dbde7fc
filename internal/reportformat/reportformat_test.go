package reportformat

import (
	"bytes"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEscapes(t *testing.T) {
	for _, c := range []struct {
		name, got, want string
	}{
		{"GitHubProperty", GitHubProperty("a,b:c%\n"), "a%2Cb%3Ac%25%0A"},
		{"GitHubData", GitHubData("50% done\r\nnext"), "50%25 done%0D%0Anext"},
		{"OneLine", OneLine("a\r\nb\nc\rd"), "a b c d"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestSet(t *testing.T) {
	text := func(r string, w io.Writer) error { _, err := io.WriteString(w, "text:"+r); return err }
	set := Set[string]{
		{Name: "text", Write: text},
		{Name: "shout", Write: Buffered(func(r string, b *bytes.Buffer) { b.WriteString(r + "!") })},
	}
	if diff := cmp.Diff([]string{"text", "shout"}, set.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		format, want, err string
	}{
		{"", "text:r", ""},
		{"text", "text:r", ""},
		{"shout", "r!", ""},
		{"html", "", `unknown report format "html"`},
	} {
		var b bytes.Buffer
		err := set.Write(&b, "r", c.format)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if b.String() != c.want || gotErr != c.err {
			t.Errorf("Write(%q) = %q, %q; want %q, %q", c.format, b.String(), gotErr, c.want, c.err)
		}
	}
}

// Package reportformat holds what the domain's reports share in how they
// are written: the table of a report's formats, which both the dispatch and
// the command lines' lists of names read, the JSON rendering, and the text
// escapes of GitHub workflow commands and one-line messages.
package reportformat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// A Format is one rendering of a report of type R.
type Format[R any] struct {
	Name  string
	Write func(r R, w io.Writer) error
}

// Set is a report's formats, the default one (what "" names) first.
type Set[R any] []Format[R]

// Names are the formats' names, in the order of the set.
func (s Set[R]) Names() []string {
	names := make([]string, len(s))
	for i, f := range s {
		names[i] = f.Name
	}
	return names
}

// Write renders r in the format called name, the first for "".
func (s Set[R]) Write(w io.Writer, r R, name string) error {
	for _, f := range s {
		if f.Name == name || name == "" && f.Name == s[0].Name {
			return f.Write(r, w)
		}
	}
	return fmt.Errorf("unknown report format %q", name)
}

// Buffered is the Write of a rendering built in a buffer, which cannot
// fail: the buffer is written once, whole.
func Buffered[R any](build func(R, *bytes.Buffer)) func(R, io.Writer) error {
	return func(r R, w io.Writer) error {
		var b bytes.Buffer
		build(r, &b)
		_, err := w.Write(b.Bytes())
		return err
	}
}

// JSON writes v as indented JSON with <, > and & as they are: every
// report's json format.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// OneLine keeps a message on its own line whatever it holds: each line
// break becomes a space.
func OneLine(s string) string { return oneLine.Replace(s) }

var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// GitHubData escapes a workflow command's message as the runner unescapes
// it.
func GitHubData(s string) string { return ghData.Replace(s) }

// GitHubProperty escapes a workflow command's property value.
func GitHubProperty(s string) string { return ghProperty.Replace(s) }

var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

package ui

import (
	"strings"
)

// Descriptions are written as Markdown more often than not (`a code
// span`, a blank line between paragraphs), and as plain text otherwise.
// The pages render a safe subset of Markdown and nothing else: paragraphs
// (split at blank lines; a single line break is a space, as Markdown
// reads it) and code spans (CommonMark's: a run of backticks, then the
// same run closing it, one space either side trimmed). Every other
// character is text, escaped by the template like any value: there is no
// HTML, link or emphasis to render, so nothing a file says can become
// markup.

// paragraph is one paragraph of a description: its runs of text and code.
type paragraph []proseRun

type proseRun struct {
	Text string
	Code bool
}

// prose reads a description as paragraphs of text and code spans.
func prose(s string) []paragraph {
	var out []paragraph
	for _, block := range splitParagraphs(s) {
		out = append(out, codeSpans(block))
	}
	return out
}

// splitParagraphs cuts s at blank lines, each paragraph's lines joined by
// a space.
func splitParagraphs(s string) []string {
	var out []string
	var lines []string
	flush := func() {
		if len(lines) > 0 {
			out = append(out, strings.Join(lines, " "))
			lines = nil
		}
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			flush()
			continue
		}
		lines = append(lines, line)
	}
	flush()
	return out
}

// codeSpans cuts a paragraph into text and code spans. A backtick run no
// run of the same length closes is text.
func codeSpans(s string) paragraph {
	var out paragraph
	text := func(t string) {
		if t == "" {
			return
		}
		if n := len(out); n > 0 && !out[n-1].Code {
			out[n-1].Text += t
			return
		}
		out = append(out, proseRun{Text: t})
	}
	for {
		open := strings.IndexByte(s, '`')
		if open < 0 {
			text(s)
			return out
		}
		run := backticks(s[open:])
		closeAt := closing(s[open+run:], run)
		if closeAt < 0 {
			text(s[:open+run])
			s = s[open+run:]
			continue
		}
		text(s[:open])
		code := s[open+run : open+run+closeAt]
		if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
			code = code[1 : len(code)-1]
		}
		out = append(out, proseRun{Text: code, Code: true})
		s = s[open+run+closeAt+run:]
	}
}

// backticks is the length of the backtick run s starts with.
func backticks(s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	return n
}

// closing is where in s a backtick run of exactly n starts, or -1.
func closing(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := backticks(s[i:])
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

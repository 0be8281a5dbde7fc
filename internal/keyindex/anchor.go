package keyindex

import "strings"

// An anchor is literal text that every name a glob matches holds at a
// known place: what an index files a glob under, and what it looks a
// pattern's candidates up by. A name matches a glob only if it holds every
// anchor of the glob, so an anchor never loses a match; the glob itself
// confirms each candidate.
type anchor struct {
	kind anchorKind
	text string
}

type anchorKind uint8

const (
	// anchorPrefix: the name starts with the text.
	anchorPrefix anchorKind = iota
	// anchorPartPrefix: a dot-separated part of the name starts with the
	// text (which holds no dot).
	anchorPartPrefix
	// anchorPartSuffix: a dot-separated part of the name ends with the
	// text (which holds no dot).
	anchorPartSuffix
	numAnchorKinds
)

// anchors appends the anchors of g to dst. Each run of literal text gives
// them: a run that starts the pattern starts the name; a run holding a dot
// puts the text after that dot at the start of a part of the name and the
// text before it at the end of one; a run that starts or ends the pattern
// does the same at the name's ends. Text floating inside a part between
// two metacharacters (*weather*) anchors nothing.
func (g *Glob) anchors(dst []anchor) []anchor {
	add := func(kind anchorKind, text string) {
		if text != "" {
			dst = append(dst, anchor{kind: kind, text: text})
		}
	}
	for i := 0; i < len(g.ops); {
		if k := g.ops[i].kind; k != opLit && k != opRune {
			i++
			continue
		}
		j := i
		for j < len(g.ops) && (g.ops[j].kind == opLit || g.ops[j].kind == opRune) {
			j++
		}
		run := g.text[g.ops[i].start:g.ops[j-1].end]
		atStart, atEnd := i == 0, j == len(g.ops)
		i = j
		if atStart {
			add(anchorPrefix, run)
		}
		first := strings.IndexByte(run, '.')
		if first < 0 {
			switch {
			case atStart:
				add(anchorPartPrefix, run)
			case atEnd:
				add(anchorPartSuffix, run)
			}
			continue
		}
		if atStart {
			add(anchorPartPrefix, run[:first])
		} else {
			add(anchorPartSuffix, run[:first])
		}
		rest := run[first+1:]
		for {
			dot := strings.IndexByte(rest, '.')
			if dot < 0 {
				add(anchorPartPrefix, rest)
				break
			}
			add(anchorPartPrefix, rest[:dot]) // a whole part
			rest = rest[dot+1:]
		}
	}
	return dst
}

// parts calls yield with each dot-separated part of name, in order.
func parts(name string, yield func(part string)) {
	for {
		dot := strings.IndexByte(name, '.')
		if dot < 0 {
			yield(name)
			return
		}
		yield(name[:dot])
		name = name[dot+1:]
	}
}

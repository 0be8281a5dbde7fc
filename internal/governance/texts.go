package governance

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/celine-eu/governanced/internal/uvarint"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// textRef is where a rule's title or description starts in its string:
// one more than the offset of its length; 0 for none (not stated, or
// null).
//
// A title and a description each name one dataset, so there is nothing
// to share them with, and a tree holds one for most of its sources keys.
// Kept as the YAML reader makes them, each would be a string of its own
// and each rule would point at it through a *string of its own: an
// allocation per text, and a pointer-holding one per text for the
// collector to scan. So a document's titles and descriptions are copied
// back to back into one string, each after its length, and a rule holds
// where its two start in it and a pointer to the block holding the string
// (textBlock), which every rule of the document shares (ADR-0022). The
// copy keeps nothing of the YAML reader alive, and the texts are freed
// with the last rule of their document.
type textRef uint32

// textBlock holds the strings a rule's title and description are read
// from: for a parsed rule, both are its document's texts; a merge that
// takes its title from one document and its description from another has
// a block of its own naming the two. A block is never changed once a rule
// is given out: a document's is filled in before parsing returns.
type textBlock struct {
	title, description string
}

// textAt is the text at ref in s; ok is false for none.
func textAt(s string, ref textRef) (text string, ok bool) {
	if ref == 0 {
		return "", false
	}
	i := int(ref - 1)
	n, w := uvarint.Decode(s[i:])
	i += w
	return s[i : i+int(n)], true
}

// Title is the title; ok is false for none.
func (r *Rule) Title() (title string, ok bool) {
	if r.title == 0 {
		return "", false
	}
	return textAt(r.texts.title, r.title)
}

// Description is the description; ok is false for none.
func (r *Rule) Description() (description string, ok bool) {
	if r.description == 0 {
		return "", false
	}
	return textAt(r.texts.description, r.description)
}

// MergedTitle is the title of MergeRules(base, override), found without
// merging; base's when override is nil.
func MergedTitle(base, override *Rule) (title string, ok bool) {
	if override != nil {
		base = textSide(base, override, FieldTitle)
	}
	return base.Title()
}

// MergedDescription is the description of MergeRules(base, override),
// found without merging; base's when override is nil.
func MergedDescription(base, override *Rule) (description string, ok bool) {
	if override != nil {
		base = textSide(base, override, FieldDescription)
	}
	return base.Description()
}

// mergedTexts is the block of a merge taking its title from t and its
// description from d: one of theirs when it holds both, else a block of
// its own, in room.
func mergedTexts(t, d *Rule, room *mergeRoom) *textBlock {
	switch {
	case d.description == 0 || t.texts == d.texts:
		return t.texts
	case t.title == 0:
		return d.texts
	}
	b := room.newTextBlock()
	*b = textBlock{title: t.texts.title, description: d.texts.description}
	return b
}

// docTexts are the texts of the document being parsed, until placed.
type docTexts struct {
	block *textBlock // the block every rule of the document is given
	*textScratch
}

// textScratch is the texts as they are gathered, each after its length,
// and the ref of each text node met: an alias, or a merge key's copy of
// an anchored mapping's pairs, reaches one node from many blocks, and its
// text is kept once. It is reused from document to document
// (textScratches): a document's texts are copied out once it is parsed.
type textScratch struct {
	buf  []byte
	seen map[*yaml11.Node]textRef
}

var textScratches = sync.Pool{New: func() any { return &textScratch{seen: map[*yaml11.Node]textRef{}} }}

// keptBytes and keptTexts bound the scratch kept for the next document:
// a huge document's would be held for as long as the process runs.
const (
	keptBytes = 1 << 20
	keptTexts = 1 << 14
)

// docText reads v, a title or description of r, as optString reads a
// string or null: it is the ref of v's text in the document's texts, 0 for
// a null, and r reads it in the document's block, filled when the
// document is placed.
func (vs *values) docText(r *Rule, v *yaml11.Node, path string) (textRef, error) {
	if v.Kind != yaml11.String {
		_, err := vs.optString(v, path) // a null, or the error
		return 0, err
	}
	t := &vs.texts
	if t.block == nil {
		t.block = &textBlock{}
		t.textScratch = textScratches.Get().(*textScratch)
	}
	r.texts = t.block
	if ref, ok := t.seen[v]; ok {
		return ref, nil
	}
	if len(t.buf)+len(v.Str)+10 > math.MaxUint32 {
		// Beyond what a textRef holds; no document the YAML reader's
		// default limits accept comes near.
		return 0, errAt(ClassValidation, v, path, "the document's titles and descriptions take more than 4 GiB")
	}
	ref := textRef(len(t.buf) + 1)
	t.buf = binary.AppendUvarint(t.buf, uint64(len(v.Str)))
	t.buf = append(t.buf, v.Str...)
	t.seen[v] = ref
	return ref, nil
}

// place fills the document's block with a copy of its texts, completing
// every rule that holds them, and gives the scratch back.
func (t *docTexts) place() {
	if t.block == nil {
		return
	}
	s := string(t.buf)
	t.block.title, t.block.description = s, s
	if cap(t.buf) <= keptBytes && len(t.seen) <= keptTexts {
		t.buf = t.buf[:0]
		clear(t.seen)
		textScratches.Put(t.textScratch)
	}
	*t = docTexts{}
}

// The tree builder below follows go.yaml.in/yaml/v3's decode.go (the parser
// type, its fail, expect, peek, node, document, alias, scalar, sequence and
// mapping methods) and yaml.go (failf, handleErr), Copyright 2011-2016
// Canonical Ltd., under the Apache License, Version 2.0 (see NOTICE). It
// drives the event stream in exactly the order decode.go does, so that a
// document is refused at the same event with the same message; what it
// builds is cut down as the package comment says.

package yamltree

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"
)

// Kind is the kind of a node, as yaml.v3's Kind.
type Kind uint8

const (
	DocumentNode Kind = 1 << iota
	SequenceNode
	MappingNode
	ScalarNode
	AliasNode
)

// Style is how a node was written, as yaml.v3's Style.
type Style uint8

const (
	TaggedStyle Style = 1 << iota
	DoubleQuotedStyle
	SingleQuotedStyle
	LiteralStyle
	FoldedStyle
	FlowStyle
)

// Node is one node of a document, as yaml.v3's Node without comments. Tag is
// the explicit tag in short form when Style has TaggedStyle; otherwise "!!map",
// "!!seq" or "!!str" (quoted, literal or folded scalars), "!!merge" for a
// plain "<<", and "" for every other plain scalar: yaml.v3 resolves that tag
// by YAML 1.2's rules, which the caller (YAML 1.1) would only ignore.
type Node struct {
	Kind   Kind
	Style  Style
	Tag    string
	Value  string
	Anchor string
	// Alias is the node an alias refers to: the node last anchored with its
	// name before it, which may be an ancestor still being read.
	Alias   *Node
	Content []*Node
	// Line and Column are 1-based.
	Line, Column int
}

const (
	seqTag   = "!!seq"
	mapTag   = "!!map"
	strTag   = "!!str"
	mergeTag = "!!merge"

	longTagPrefix = "tag:yaml.org,2002:"
)

func shortTag(tag string) string {
	if rest, ok := strings.CutPrefix(tag, longTagPrefix); ok {
		return "!!" + rest
	}
	return tag
}

// Decoder reads the documents of one YAML stream in turn.
type Decoder struct {
	p parser
}

// NewDecoder reads the stream in data.
func NewDecoder(data []byte) *Decoder {
	d := &Decoder{}
	if !yaml_parser_initialize(&d.p.parser) {
		panic("yamltree: failed to initialize the YAML parser")
	}
	yaml_parser_set_input_reader(&d.p.parser, bytes.NewReader(data))
	return d
}

// Decode returns the next document's node (Kind DocumentNode), or io.EOF
// when the stream has no more. An error reads as yaml.v3's does ("yaml: line
// 3: mapping values are not allowed in this context").
func (d *Decoder) Decode() (doc *Node, err error) {
	defer handleErr(&err)
	n := d.p.parse()
	if n == nil {
		return nil, io.EOF
	}
	return n, nil
}

type yamlError struct{ err error }

func failf(format string, args ...any) {
	panic(yamlError{fmt.Errorf("yaml: "+format, args...)})
}

func handleErr(err *error) {
	if v := recover(); v != nil {
		if e, ok := v.(yamlError); ok {
			*err = e.err
			return
		}
		panic(v)
	}
}

// nodeChunk and contentChunk size the slabs nodes and child lists are cut
// from: a document of 1 000 sources has some 100 000 nodes, and one
// allocation each was most of what reading it cost.
const (
	nodeChunk    = 256
	contentChunk = 1024
)

type parser struct {
	parser   yaml_parser_t
	event    yaml_event_t
	doneInit bool
	anchors  map[string]*Node

	nodes    []Node  // the rest of the current node slab
	content  []*Node // the rest of the current child-list slab
	children []*Node // the children of the collections being read, innermost last
}

func (p *parser) init() {
	if p.doneInit {
		return
	}
	p.anchors = make(map[string]*Node)
	p.expect(yaml_STREAM_START_EVENT)
	p.doneInit = true
}

func (p *parser) fail() {
	var where string
	var line int
	if p.parser.context_mark.line != 0 {
		line = p.parser.context_mark.line
		// Scanner errors don't iterate line before returning error
		if p.parser.error == yaml_SCANNER_ERROR {
			line++
		}
	} else if p.parser.problem_mark.line != 0 {
		line = p.parser.problem_mark.line
		// Scanner errors don't iterate line before returning error
		if p.parser.error == yaml_SCANNER_ERROR {
			line++
		}
	}
	if line != 0 {
		where = "line " + strconv.Itoa(line) + ": "
	}
	var msg string
	if len(p.parser.problem) > 0 {
		msg = p.parser.problem
	} else {
		msg = "unknown problem parsing YAML content"
	}
	failf("%s%s", where, msg)
}

// expect consumes an event of type e from the stream.
func (p *parser) expect(e yaml_event_type_t) {
	if p.event.typ == yaml_NO_EVENT {
		if !yaml_parser_parse(&p.parser, &p.event) {
			p.fail()
		}
	}
	if p.event.typ == yaml_STREAM_END_EVENT {
		failf("attempted to go past the end of stream; corrupted value?")
	}
	if p.event.typ != e {
		p.parser.problem = fmt.Sprintf("expected %s event but got %s", e, p.event.typ)
		p.fail()
	}
	yaml_event_delete(&p.event)
	p.event.typ = yaml_NO_EVENT
}

// peek reads the next event into p.event, if it is not there yet, and
// returns its type.
func (p *parser) peek() yaml_event_type_t {
	if p.event.typ != yaml_NO_EVENT {
		return p.event.typ
	}
	// yaml_parser_parse can report success with an error set (yaml.v3 #666).
	if !yaml_parser_parse(&p.parser, &p.event) || p.parser.error != yaml_NO_ERROR {
		p.fail()
	}
	return p.event.typ
}

func (p *parser) parse() *Node {
	p.init()
	switch p.peek() {
	case yaml_SCALAR_EVENT:
		return p.scalar()
	case yaml_ALIAS_EVENT:
		return p.alias()
	case yaml_MAPPING_START_EVENT:
		return p.mapping()
	case yaml_SEQUENCE_START_EVENT:
		return p.sequence()
	case yaml_DOCUMENT_START_EVENT:
		return p.document()
	case yaml_STREAM_END_EVENT:
		return nil
	case yaml_TAIL_COMMENT_EVENT:
		panic("internal error: unexpected tail comment event (please report)")
	default:
		panic("internal error: attempted to parse unknown event (please report): " + p.event.typ.String())
	}
}

func (p *parser) newNode() *Node {
	if len(p.nodes) == 0 {
		p.nodes = make([]Node, nodeChunk)
	}
	n := &p.nodes[0]
	p.nodes = p.nodes[1:]
	return n
}

func (p *parser) node(kind Kind, defaultTag, tag, value string) *Node {
	var style Style
	if tag != "" && tag != "!" {
		tag = shortTag(tag)
		style = TaggedStyle
	} else {
		tag = defaultTag
	}
	n := p.newNode()
	*n = Node{
		Kind:   kind,
		Tag:    tag,
		Value:  value,
		Style:  style,
		Line:   p.event.start_mark.line + 1,
		Column: p.event.start_mark.column + 1,
	}
	return n
}

// text is b as a string without a copy: b is a scalar's value, which the
// scanner gives bytes of their own and never writes again (scalarValue).
func (p *parser) text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// enter starts reading the children of a collection; leave returns them.
func (p *parser) enter() int { return len(p.children) }

func (p *parser) leave(start int) []*Node {
	kids := p.children[start:]
	var out []*Node
	switch {
	case len(kids) == 0:
	case len(kids) > contentChunk/4:
		out = make([]*Node, len(kids))
	default:
		if len(p.content) < len(kids) {
			p.content = make([]*Node, contentChunk)
		}
		out = p.content[:len(kids):len(kids)]
		p.content = p.content[len(kids):]
	}
	copy(out, kids)
	clear(kids)
	p.children = p.children[:start]
	return out
}

// child reads the next node as a child of the collection being read.
func (p *parser) child() {
	p.children = append(p.children, p.parse())
}

func (p *parser) anchor(n *Node, anchor []byte) {
	if anchor != nil {
		n.Anchor = string(anchor)
		p.anchors[n.Anchor] = n
	}
}

func (p *parser) document() *Node {
	n := p.node(DocumentNode, "", "", "")
	p.expect(yaml_DOCUMENT_START_EVENT)
	start := p.enter()
	p.child()
	n.Content = p.leave(start)
	// decode.go peeks here (for the foot comment) before it expects the end;
	// peek refuses what expect would let through (yaml.v3 #666), so it stays.
	p.peek()
	p.expect(yaml_DOCUMENT_END_EVENT)
	return n
}

func (p *parser) alias() *Node {
	n := p.node(AliasNode, "", "", string(p.event.anchor))
	n.Alias = p.anchors[n.Value]
	if n.Alias == nil {
		failf("unknown anchor '%s' referenced", n.Value)
	}
	p.expect(yaml_ALIAS_EVENT)
	return n
}

func (p *parser) scalar() *Node {
	var parsedStyle = p.event.scalar_style()
	var nodeStyle Style
	switch {
	case parsedStyle&yaml_DOUBLE_QUOTED_SCALAR_STYLE != 0:
		nodeStyle = DoubleQuotedStyle
	case parsedStyle&yaml_SINGLE_QUOTED_SCALAR_STYLE != 0:
		nodeStyle = SingleQuotedStyle
	case parsedStyle&yaml_LITERAL_SCALAR_STYLE != 0:
		nodeStyle = LiteralStyle
	case parsedStyle&yaml_FOLDED_SCALAR_STYLE != 0:
		nodeStyle = FoldedStyle
	}
	var nodeValue = p.text(p.event.value)
	var nodeTag = string(p.event.tag)
	var defaultTag string
	if nodeStyle == 0 {
		if nodeValue == "<<" {
			defaultTag = mergeTag
		}
	} else {
		defaultTag = strTag
	}
	n := p.node(ScalarNode, defaultTag, nodeTag, nodeValue)
	n.Style |= nodeStyle
	p.anchor(n, p.event.anchor)
	p.expect(yaml_SCALAR_EVENT)
	return n
}

func (p *parser) sequence() *Node {
	n := p.node(SequenceNode, seqTag, string(p.event.tag), "")
	if p.event.sequence_style()&yaml_FLOW_SEQUENCE_STYLE != 0 {
		n.Style |= FlowStyle
	}
	p.anchor(n, p.event.anchor)
	p.expect(yaml_SEQUENCE_START_EVENT)
	start := p.enter()
	for p.peek() != yaml_SEQUENCE_END_EVENT {
		p.child()
	}
	n.Content = p.leave(start)
	p.expect(yaml_SEQUENCE_END_EVENT)
	return n
}

func (p *parser) mapping() *Node {
	n := p.node(MappingNode, mapTag, string(p.event.tag), "")
	if p.event.mapping_style()&yaml_FLOW_MAPPING_STYLE != 0 {
		n.Style |= FlowStyle
	}
	p.anchor(n, p.event.anchor)
	p.expect(yaml_MAPPING_START_EVENT)
	start := p.enter()
	for p.peek() != yaml_MAPPING_END_EVENT {
		p.child()
		p.child()
		if p.peek() == yaml_TAIL_COMMENT_EVENT {
			p.expect(yaml_TAIL_COMMENT_EVENT)
		}
	}
	n.Content = p.leave(start)
	p.expect(yaml_MAPPING_END_EVENT)
	return n
}

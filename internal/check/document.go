package check

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/schema"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// pointer renders path segments as an RFC 6901 JSON pointer.
func pointer(segs ...string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func ptr(segs ...string) *string { return str(pointer(segs...)) }

// keyText is a mapping key as findings name it: a string as written, any
// other scalar in the reference's plain text (1, True, None, 2024-01-01).
func keyText(k *yaml11.Node) string {
	if k.Kind == yaml11.String {
		return k.Str
	}
	return yaml11.PyStr(k)
}

// quoted is text from a document as a message quotes it: in Go's quotes,
// cut after yaml11.MaxQuoted characters with "…" after the quotes. The
// finding's subject keeps the whole text.
func quoted(s string) string {
	n := 0
	for i := range s {
		if n == yaml11.MaxQuoted {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

func with(segs []string, more ...string) []string {
	out := make([]string, 0, len(segs)+len(more))
	return append(append(out, segs...), more...)
}

// loaded is a YAML document read for the check, or the reason it was not.
type loaded struct {
	data []byte
	root *yaml11.Node // schema.Document applied: an empty document is an empty mapping
	dups []yaml11.Warning
}

// parseYAML applies check.md §5 items 1–3 and 5 to one file's bytes (err:
// why they could not be read), emitting load-error or not-a-mapping through
// fail. It returns nil when the file has no document; values is what
// reading it cost (yaml11.Document.Values), loaded or not. The document's
// nodes are in arena (nil: the heap).
func parseYAML(data []byte, err error, disp string, fail func(Finding), arena *yaml11.Arena) (l *loaded, values int) {
	if err != nil {
		fail(Finding{Severity: Error, Code: CodeLoadError, File: disp, Message: "cannot read the file: " + errMsg(err)})
		return nil, 0
	}
	d, err := yaml11.ParseDocumentIn(data, yaml11.Limits{}, arena)
	root, dups := d.Root, d.Warnings
	if err != nil {
		f := Finding{Severity: Error, Code: CodeLoadError, File: disp, Message: "not a loadable YAML document: " + err.Error()}
		var ye *yaml11.Error
		if errors.As(err, &ye) {
			f.Line, f.Column = ye.Line, ye.Column
			if f.Line == 0 {
				f.Column = 0
			} else if f.Column == 0 {
				f.Column = 1
			}
			f.Message = "not a loadable YAML document: " + ye.Msg
		}
		fail(f)
		return nil, d.Values
	}
	doc := schema.Document(root)
	if doc.Kind != yaml11.Map {
		fail(Finding{Severity: Error, Code: CodeNotAMapping, File: disp, Line: doc.Pos.Line, Column: doc.Pos.Column, path: str(""),
			Message: fmt.Sprintf("the document must be a mapping, not %s", yaml11.Describe(doc))})
		return nil, d.Values
	}
	return &loaded{data: data, root: doc, dups: dups}, d.Values
}

func errMsg(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// duplicateKeys reports every key written twice in one mapping (check.md §5
// item 4). dataset tells whether a key path lies under a source key.
func duplicateKeys(l *loaded, disp string, fail func(Finding), dataset func(segs []string, keys []*yaml11.Node) *string) {
	for _, w := range l.dups {
		f := Finding{Severity: Error, Code: CodeDuplicateKey, File: disp, Line: w.Pos.Line, Column: w.Pos.Column}
		segs, keys, text, ok := locateDuplicate(l.root, w)
		if ok {
			f.path = ptr(segs...)
			f.Subject = str(text)
			if dataset != nil {
				f.Dataset = dataset(segs, keys)
			}
			f.Message = fmt.Sprintf("key %s is written twice in one mapping (first at line %d): every consumer silently keeps only the later value", quoted(text), keys[len(keys)-1].Pos.Line)
		} else {
			f.Message = w.Msg
		}
		fail(f)
	}
}

var dupMessage = regexp.MustCompile(`^duplicate key (.*) \(first written at line (\d+)\)`)

// locateDuplicate finds the mapping a duplicate-key warning belongs to. The
// reader reports only where the later key was written and where the first
// one was; the later key is gone from the tree, so the mapping is the one
// holding the surviving key written on that first line, before the later key
// (the closest such key when flow mappings share a line). A node reached
// through an alias is reported where it is defined: the first path met.
func locateDuplicate(root *yaml11.Node, w yaml11.Warning) (segs []string, keys []*yaml11.Node, text string, ok bool) {
	m := dupMessage.FindStringSubmatch(w.Msg)
	if m == nil {
		return nil, nil, "", false
	}
	repr := m[1]
	line, _ := strconv.Atoi(m[2])
	before := func(p yaml11.Pos) bool { return posLess(p, w.Pos) }
	var best struct {
		segs  []string
		keys  []*yaml11.Node
		pos   yaml11.Pos
		exact bool
		found bool
	}
	seen := map[*yaml11.Node]bool{}
	var walk func(n *yaml11.Node, segs []string, keys []*yaml11.Node)
	walk = func(n *yaml11.Node, segs []string, keys []*yaml11.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		switch n.Kind {
		case yaml11.Map:
			for _, p := range n.Pairs {
				ks := with(segs, keyText(p.Key))
				kn := append(append([]*yaml11.Node{}, keys...), p.Key)
				if p.Key.Pos.Line == line && before(p.Key.Pos) {
					exact := yaml11.ShortRepr(p.Key) == repr
					var better bool
					switch {
					case !best.found:
						better = true
					case exact != best.exact:
						better = exact
					default:
						better = posLess(best.pos, p.Key.Pos) // equal: an alias of the same key, keep the first
					}
					if better {
						best.segs, best.keys, best.pos, best.exact, best.found = ks, kn, p.Key.Pos, exact, true
					}
				}
				walk(p.Value, ks, kn)
			}
		case yaml11.Seq:
			for i, it := range n.Items {
				walk(it, with(segs, strconv.Itoa(i)), append(append([]*yaml11.Node{}, keys...), nil))
			}
		}
	}
	walk(root, nil, nil)
	if !best.found {
		return nil, nil, "", false
	}
	return best.segs, best.keys, best.segs[len(best.segs)-1], true
}

// sourceDataset is the dataset of a finding located at segs in a governance
// document: the source key when the location is (under) a string key of
// sources.
func sourceDataset(segs []string, keys []*yaml11.Node) *string {
	if len(segs) >= 2 && segs[0] == "sources" && keys[1] != nil && keys[1].Kind == yaml11.String {
		return str(keys[1].Str)
	}
	return nil
}

// The dataspace keys the schema's open dataspace block is meant to hold:
// the model's own, and the sub-objects the dataspace component adds
// (check.md §6.2, decision D16).
var dataspaceKeys = map[string]bool{
	"expose": true, "medallion": true, "contract_required": true, "consent_required": true,
	"odrl_action": true, "purpose": true, "asset": true, "data_address": true, "contract": true,
}

// documentRules applies the rules of check.md §5 item 4 and §6 to a loaded
// governance document: duplicate keys, the schema, unknown root keys and
// the per-block rules.
func documentRules(l *loaded, disp, schema string, fail func(Finding)) {
	duplicateKeys(l, disp, fail, sourceDataset)
	for _, v := range mustViolations(l.root, schema, disp) {
		fail(violationFinding(CodeSchemaViolation, disp, v))
	}
	root := l.root
	for _, p := range root.Pairs {
		if p.Key.Kind != yaml11.String || !governance.RootKeys[p.Key.Str] {
			t := keyText(p.Key)
			fail(Finding{Severity: Warning, Code: CodeUnknownKey, File: disp, Line: p.Key.Pos.Line, Column: p.Key.Pos.Column,
				path: ptr(t), Subject: str(t), Message: fmt.Sprintf("unknown root key %s is ignored", quoted(t))})
		}
	}
	blockRules(disp, root.Get("defaults"), []string{"defaults"}, nil, fail)
	if srcs := root.Get("sources"); srcs != nil && srcs.Kind == yaml11.Map {
		for _, p := range srcs.Pairs {
			t := keyText(p.Key)
			var ds *string
			if p.Key.Kind == yaml11.String {
				ds = str(p.Key.Str)
			} else {
				fail(Finding{Severity: Error, Code: CodeNonStringKey, File: disp, Line: p.Key.Pos.Line, Column: p.Key.Pos.Column,
					path: ptr("sources", t), Subject: str(t),
					Message: fmt.Sprintf("sources key %s is not a string: consumers refuse the file (quote it)", yaml11.ShortRepr(p.Key))})
			}
			blockRules(disp, p.Value, []string{"sources", t}, ds, fail)
		}
	}
}

// blockRules applies the per-block rules of check.md §6.1 (nested content),
// §6.2–§6.6 to the defaults or one sources entry.
func blockRules(disp string, block *yaml11.Node, segs []string, ds *string, fail func(Finding)) {
	if block == nil || block.Kind != yaml11.Map {
		return
	}
	eff, effSegs := block, segs
	if block.Has("governance") {
		for _, p := range block.Pairs {
			if p.Key.Kind == yaml11.String && p.Key.Str == "governance" {
				continue
			}
			t := keyText(p.Key)
			fail(Finding{Severity: Warning, Code: CodeIgnoredKey, File: disp, Line: p.Key.Pos.Line, Column: p.Key.Pos.Column,
				path: ptr(with(segs, t)...), Dataset: ds, Subject: str(t),
				Message: fmt.Sprintf("key %s is ignored: the block nests its fields under governance:, so every sibling key is dropped", quoted(t))})
		}
		inner := block.Get("governance")
		effSegs = with(segs, "governance")
		if inner.Kind == yaml11.Null {
			return // an empty block
		}
		// The published schema lets nested content through (validation.md
		// §2.7); the gate validates it as the block it is (decision D18).
		for _, v := range blockSchema().ViolationsAt(inner, disp, toPath(effSegs)) {
			fail(violationFinding(CodeSchemaViolation, disp, v))
		}
		if inner.Kind != yaml11.Map {
			return
		}
		eff = inner
	}
	for _, p := range eff.Pairs {
		k, v := p.Key, p.Value
		t := keyText(k)
		at := func(n *yaml11.Node, code string, sev Severity, subject *string, msg string) {
			fail(Finding{Severity: sev, Code: code, File: disp, Line: n.Pos.Line, Column: n.Pos.Column,
				path: ptr(with(effSegs, t)...), Dataset: ds, Subject: subject, Message: msg})
		}
		if k.Kind != yaml11.String {
			at(k, CodeNonStringKey, Error, str(t), fmt.Sprintf("block key %s is not a string: consumers refuse the file", yaml11.ShortRepr(k)))
			continue
		}
		if _, known := governance.KnownKeys[k.Str]; !known {
			at(k, CodeUnknownKey, Warning, str(t), fmt.Sprintf("unknown key %s is ignored: the dataset keeps the default for whatever was meant", quoted(t)))
			continue
		}
		switch k.Str {
		case "dataspace":
			if v.Kind != yaml11.Map {
				break
			}
			for _, dp := range v.Pairs {
				if dp.Key.Kind != yaml11.String || dataspaceKeys[dp.Key.Str] {
					continue
				}
				fail(Finding{Severity: Warning, Code: CodeUnknownKey, File: disp, Line: dp.Key.Pos.Line, Column: dp.Key.Pos.Column,
					path: ptr(with(effSegs, "dataspace", dp.Key.Str)...), Dataset: ds, Subject: str(dp.Key.Str),
					Message: fmt.Sprintf("unknown dataspace key %s is ignored: a misspelled flag silently reads as false", quoted(dp.Key.Str))})
			}
		case "user_filter_column":
			if v.Kind == yaml11.Null || (v.Kind == yaml11.String && v.Str != "") {
				break
			}
			msg := "user_filter_column must be null or a non-empty string: "
			if v.Kind == yaml11.String {
				msg += "an empty string is silently no filter, so the dataset would be served unfiltered"
			} else {
				msg += fmt.Sprintf("%s makes consumers fail to parse the file", yaml11.ShortRepr(v))
			}
			at(v, CodeLegacyRowFilterInvalid, Error, nil, msg)
		case "access_level":
			if v.Kind == yaml11.String && v.Str == "secret" {
				at(v, CodeAccessLevelSecret, Warning, nil,
					"access_level secret is the legacy fourth level that consumers read differently (normalised to restricted, hidden from the catalogue, rejected by the facet schema): write restricted, or withhold the dataset with expose: false")
			}
		}
	}
}

func toPath(segs []string) schema.Path {
	p := make(schema.Path, len(segs))
	for i, s := range segs {
		p[i] = schema.Key(s)
	}
	return p
}

// violationFinding turns one schema error into a finding (check.md §6.1).
func violationFinding(code, disp string, v schema.Violation) Finding {
	f := Finding{Severity: Error, Code: code, File: disp, Line: v.Pos.Line, Column: v.Pos.Column,
		path: str(v.Path.Pointer()), Subject: str(v.Subject()), Message: v.String()}
	if code == CodeSchemaViolation && len(v.Path) >= 2 && !v.Path[0].IsIndex() && v.Path[0].Key() == "sources" && !v.Path[1].IsIndex() {
		f.Dataset = str(v.Path[1].Key())
	}
	return f
}

func mustViolations(doc *yaml11.Node, name, disp string) []schema.Violation {
	vs, err := schema.Violations(doc, name, disp)
	if err != nil {
		// Only an unknown schema name fails, and the names are constants.
		panic(fmt.Sprintf("check: schema %s: %v", name, err))
	}
	return vs
}

func blockSchema() *schema.Schema {
	s, err := schema.Load("governance#/$defs/governanceBlock")
	if err != nil {
		panic(fmt.Sprintf("check: block schema: %v", err))
	}
	return s
}

func posLess(a, b yaml11.Pos) bool {
	return a.Line < b.Line || (a.Line == b.Line && a.Column < b.Column)
}

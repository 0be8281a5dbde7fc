package snapshot

import (
	"bytes"
	"fmt"
	"os"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// Provenance answers "why is this value what it is" (explain=true): for every
// field path a resolved rule states, the layer, file and position that supplied
// it. The four layers, in the order the merges apply them, are the base's
// defaults, the overlay's defaults, the base's source block and the overlay's
// source block (governance-format.md §6, §8).
//
// governance.Rule keeps one origin per top-level field; nested fields
// (dataspace.expose, dcat.temporal.start) can come from different layers, so
// provenance is read from the layers' YAML nodes with the merge's own rules:
// the last layer stating a field wins; ownership and row_filters only when
// non-empty; a null dcat, dataspace or ontology block inherits; tags, purpose
// and the two OR-ed dataspace flags combine every stating layer (merged_from).

// Layer names as the API reports them.
const (
	LayerDefaults        = "defaults"
	LayerSource          = "source"
	LayerOverlayDefaults = "overlay.defaults"
	LayerOverlaySource   = "overlay.source"
)

// unitLayers are the parsed base and overlay documents of one unit.
type unitLayers struct {
	baseFile, overlayFile string
	base, overlay         *yaml11.Node
}

// readLayers parses a unit's files for provenance. The check has already
// accepted these bytes; a file that no longer parses (changed under us) only
// costs provenance, and the revision check around the build catches the change.
func readLayers(u unit) *unitLayers {
	l := &unitLayers{baseFile: u.base, overlayFile: u.overlay}
	parse := func(file string) *yaml11.Node {
		if file == "" {
			return nil
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil
		}
		n, err := yaml11.Parse(data)
		if err != nil {
			return nil
		}
		return n
	}
	l.base = parse(u.baseFile)
	l.overlay = parse(u.overlayFile)
	return l
}

type layer struct {
	name, file string
	block      *yaml11.Node // the effective block mapping; nil when the layer says nothing
}

// effective is a block's effective mapping: the value of governance: when
// nested, else the block itself.
func effective(v *yaml11.Node) *yaml11.Node {
	if v == nil || v.Kind != yaml11.Map {
		return nil
	}
	if inner := v.Get("governance"); inner != nil {
		if inner.Kind != yaml11.Map {
			return nil
		}
		return inner
	}
	return v
}

func docBlock(doc *yaml11.Node, key string, source bool) *yaml11.Node {
	if doc == nil || doc.Kind != yaml11.Map {
		return nil
	}
	if !source {
		return effective(doc.Get("defaults"))
	}
	srcs := doc.Get("sources")
	if srcs == nil || srcs.Kind != yaml11.Map {
		return nil
	}
	return effective(srcs.Get(key))
}

func (l *unitLayers) layers(key string, withSource bool) []layer {
	out := []layer{{LayerDefaults, l.baseFile, docBlock(l.base, "", false)}}
	if l.overlayFile != "" {
		out = append(out, layer{LayerOverlayDefaults, l.overlayFile, docBlock(l.overlay, "", false)})
	}
	if withSource {
		out = append(out, layer{LayerSource, l.baseFile, docBlock(l.base, key, true)})
		if l.overlayFile != "" {
			out = append(out, layer{LayerOverlaySource, l.overlayFile, docBlock(l.overlay, key, true)})
		}
	}
	return out
}

// statement is one layer stating one field path.
type statement struct {
	layer *layer
	value *yaml11.Node
}

// provenance encodes the provenance object of the rule a key resolves to (or
// of the defaults alone when withSource is false).
func (l *unitLayers) provenance(key string, withSource bool) []byte {
	if l == nil {
		return []byte("{}")
	}
	ls := l.layers(key, withSource)
	w := &provWriter{}
	w.buf.WriteByte('{')
	blocks := make([]src, len(ls))
	for i := range ls {
		blocks[i] = src{&ls[i], ls[i].block}
	}
	for f := governance.Field(0); f < governance.FieldExtra; f++ {
		k := f.Key()
		st := stated(blocks, k)
		if len(st) == 0 {
			continue
		}
		switch f {
		case governance.FieldOwnership, governance.FieldRowFilters:
			w.entry(k, lastWhere(st, nonEmptySeq), nil)
		case governance.FieldTags:
			w.entry(k, st[len(st)-1], st)
		case governance.FieldOntology:
			win := lastWhere(st, isMap)
			w.entry(k, win, nil)
			if win.value.Kind == yaml11.Map {
				for _, sub := range []string{"spec", "spec_file"} {
					if v := win.value.Get(sub); v != nil {
						w.entry(k+"."+sub, statement{win.layer, v}, nil)
					}
				}
			}
		case governance.FieldDcat:
			w.entry(k, lastWhere(st, isMap), nil)
			subs := subBlocks(st)
			for _, sub := range []string{"publisher_uri", "themes", "language_uris", "spatial_uris", "accrual_periodicity", "conforms_to"} {
				if s := stated(subs, sub); len(s) > 0 {
					w.entry(k+"."+sub, s[len(s)-1], nil)
				}
			}
			if ts := stated(subs, "temporal"); len(ts) > 0 {
				w.entry(k+".temporal", ts[len(ts)-1], nil)
				// A null temporal resets it; only what follows the last reset counts.
				from := 0
				for i, t := range ts {
					if t.value.Kind != yaml11.Map {
						from = i + 1
					}
				}
				tb := subBlocks(ts[from:])
				for _, sub := range []string{"start", "end"} {
					if s := stated(tb, sub); len(s) > 0 {
						w.entry(k+".temporal."+sub, s[len(s)-1], nil)
					}
				}
			}
		case governance.FieldDataspace:
			w.entry(k, lastWhere(st, isMap), nil)
			subs := subBlocks(st)
			for _, sub := range []string{"medallion", "contract_required", "consent_required", "odrl_action", "purpose", "expose"} {
				s := stated(subs, sub)
				if len(s) == 0 {
					continue
				}
				var all []statement
				if sub == "purpose" || sub == "contract_required" || sub == "consent_required" {
					all = s
				}
				w.entry(k+"."+sub, s[len(s)-1], all)
			}
		default:
			w.entry(k, st[len(st)-1], nil)
		}
	}
	// Keys outside the grammar land in extra, merged key by key.
	var extraKeys []string
	seen := map[string]bool{}
	for _, b := range blocks {
		if b.block == nil {
			continue
		}
		for _, p := range b.block.Pairs {
			if p.Key.Kind != yaml11.String {
				continue
			}
			if _, known := governance.KnownKeys[p.Key.Str]; known || seen[p.Key.Str] {
				continue
			}
			seen[p.Key.Str] = true
			extraKeys = append(extraKeys, p.Key.Str)
		}
	}
	for _, k := range extraKeys {
		st := stated(blocks, k)
		w.entry("extra."+k, st[len(st)-1], nil)
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes()
}

// src is a mapping one layer contributes at some depth: the layer's block,
// or its dcat, dataspace or temporal sub-block.
type src struct {
	layer *layer
	block *yaml11.Node
}

// stated lists the sources that state key, in merge order.
func stated(srcs []src, key string) []statement {
	var out []statement
	for _, s := range srcs {
		if s.block == nil || s.block.Kind != yaml11.Map {
			continue
		}
		if v := s.block.Get(key); v != nil {
			out = append(out, statement{s.layer, v})
		}
	}
	return out
}

// subBlocks are the mappings among statements: a null sub-block inherits, so
// it takes no part in the field-by-field merge below it.
func subBlocks(st []statement) []src {
	var out []src
	for _, s := range st {
		if s.value.Kind == yaml11.Map {
			out = append(out, src{s.layer, s.value})
		}
	}
	return out
}

func lastWhere(st []statement, pred func(*yaml11.Node) bool) statement {
	for i := len(st) - 1; i >= 0; i-- {
		if pred(st[i].value) {
			return st[i]
		}
	}
	return st[len(st)-1]
}

func nonEmptySeq(v *yaml11.Node) bool { return v.Kind == yaml11.Seq && len(v.Items) > 0 }
func isMap(v *yaml11.Node) bool       { return v.Kind == yaml11.Map }

type provWriter struct {
	buf   bytes.Buffer
	count int
}

func (w *provWriter) entry(path string, s statement, all []statement) {
	if w.count > 0 {
		w.buf.WriteByte(',')
	}
	w.count++
	w.buf.Write(appendString(nil, path))
	w.buf.WriteByte(':')
	writeOrigin(&w.buf, s)
	if len(all) > 1 {
		w.buf.WriteString(`,"merged_from":[`)
		for i, a := range all {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			writeOrigin(&w.buf, a)
			w.buf.WriteByte('}')
		}
		w.buf.WriteByte(']')
	}
	w.buf.WriteByte('}')
}

// writeOrigin writes an origin object without its closing brace.
func writeOrigin(buf *bytes.Buffer, s statement) {
	buf.WriteString(`{"layer":`)
	buf.Write(appendString(nil, s.layer.name))
	buf.WriteString(`,"file":`)
	buf.Write(appendString(nil, s.layer.file))
	fmt.Fprintf(buf, `,"line":%d,"column":%d`, s.value.Pos.Line, s.value.Pos.Column)
}

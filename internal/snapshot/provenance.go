package snapshot

import (
	"encoding/binary"
	"strconv"

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

// unitLayers are the parsed base and overlay documents of one unit: the very
// nodes the check loaded, so provenance names positions in the bytes that were
// checked and no file is read or parsed twice.
type unitLayers struct {
	baseFile, overlayFile string
	base, overlay         *yaml11.Node
	// The sources mappings by key, built once: a linear Get per key made
	// provenance quadratic in an app's size.
	baseSources, overlaySources map[string]*yaml11.Node
}

func newUnitLayers(u unit) *unitLayers {
	return &unitLayers{
		baseFile: u.base, overlayFile: u.overlay,
		base: u.baseRoot, overlay: u.overlayRoot,
		baseSources: u.baseRoot.Get("sources").KeyIndex(), overlaySources: u.overlayRoot.Get("sources").KeyIndex(),
	}
}

type layer struct {
	code  byte         // layerDefaults … layerOverlaySource
	block *yaml11.Node // the effective block mapping; nil when the layer says nothing
}

// Layer codes as provenance records store them; the name and file follow from
// the code and the app.
const (
	layerDefaults byte = iota
	layerOverlayDefaults
	layerSource
	layerOverlaySource
)

var layerNames = [...]string{LayerDefaults, LayerOverlayDefaults, LayerSource, LayerOverlaySource}

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

func defaultsBlock(doc *yaml11.Node) *yaml11.Node {
	if doc == nil || doc.Kind != yaml11.Map {
		return nil
	}
	return effective(doc.Get("defaults"))
}

func (l *unitLayers) layers(key string, withSource bool) []layer {
	out := make([]layer, 0, 4)
	out = append(out, layer{layerDefaults, defaultsBlock(l.base)})
	if l.overlayFile != "" {
		out = append(out, layer{layerOverlayDefaults, defaultsBlock(l.overlay)})
	}
	if withSource {
		out = append(out, layer{layerSource, effective(l.baseSources[key])})
		if l.overlayFile != "" {
			out = append(out, layer{layerOverlaySource, effective(l.overlaySources[key])})
		}
	}
	return out
}

// statement is one layer stating one field path.
type statement struct {
	layer *layer
	value *yaml11.Node
}

// appendProvenance appends the provenance record of the rule a key resolves
// to (or of the defaults alone when withSource is false); appendProvenanceJSON
// renders it. A record is a few bytes an entry where the JSON is a few hundred:
// at 100 000 sources pre-encoded JSON was most of the retained heap, and only
// explain=true reads it.
func (l *unitLayers) appendProvenance(dst []byte, key string, withSource bool) []byte {
	if l == nil {
		return dst
	}
	ls := l.layers(key, withSource)
	w := &provWriter{buf: dst}
	blocks := make([]src, len(ls))
	for i := range ls {
		blocks[i] = src{&ls[i], ls[i].block}
	}
	// Statements land in these, not in a slice a call: a record is built for
	// every source, and those slices were a third of a cold load's allocations.
	var stBuf, subBuf, tsBuf [4]statement
	var subsBuf, tbBuf [4]src
	for f := governance.Field(0); f < governance.FieldExtra; f++ {
		k := f.Key()
		st := stated(stBuf[:0], blocks, k)
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
			subs := subBlocks(subsBuf[:0], st)
			for _, sub := range []string{"publisher_uri", "themes", "language_uris", "spatial_uris", "accrual_periodicity", "conforms_to"} {
				if s := stated(subBuf[:0], subs, sub); len(s) > 0 {
					w.entry(k+"."+sub, s[len(s)-1], nil)
				}
			}
			if ts := stated(tsBuf[:0], subs, "temporal"); len(ts) > 0 {
				w.entry(k+".temporal", ts[len(ts)-1], nil)
				// A null temporal resets it; only what follows the last reset counts.
				from := 0
				for i, t := range ts {
					if t.value.Kind != yaml11.Map {
						from = i + 1
					}
				}
				tb := subBlocks(tbBuf[:0], ts[from:])
				for _, sub := range []string{"start", "end"} {
					if s := stated(subBuf[:0], tb, sub); len(s) > 0 {
						w.entry(k+".temporal."+sub, s[len(s)-1], nil)
					}
				}
			}
		case governance.FieldDataspace:
			w.entry(k, lastWhere(st, isMap), nil)
			subs := subBlocks(subsBuf[:0], st)
			for _, sub := range []string{"medallion", "contract_required", "consent_required", "odrl_action", "purpose", "expose"} {
				s := stated(subBuf[:0], subs, sub)
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
		st := stated(stBuf[:0], blocks, k)
		w.extra(k, st[len(st)-1])
	}
	return w.buf
}

// src is a mapping one layer contributes at some depth: the layer's block,
// or its dcat, dataspace or temporal sub-block.
type src struct {
	layer *layer
	block *yaml11.Node
}

// stated appends to out the sources that state key, in merge order.
func stated(out []statement, srcs []src, key string) []statement {
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
func subBlocks(out []src, st []statement) []src {
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

// A provenance record is a sequence of entries:
//
//	path    byte: an index into provPaths, or provExtra then uvarint length and the key
//	origin  layer code byte, uvarint line, uvarint column
//	merged  uvarint count, then that many origins (merged_from; 0 for none)
type provWriter struct {
	buf []byte
}

const provExtra = 0xff

// provPaths are the field paths provenance can name besides extra keys.
var provPaths, provPathCode = func() ([]string, map[string]byte) {
	var paths []string
	for f := governance.Field(0); f < governance.FieldExtra; f++ {
		paths = append(paths, f.Key())
	}
	for _, sub := range []string{"spec", "spec_file"} {
		paths = append(paths, "ontology."+sub)
	}
	for _, sub := range []string{"publisher_uri", "themes", "language_uris", "spatial_uris", "accrual_periodicity", "conforms_to", "temporal", "temporal.start", "temporal.end"} {
		paths = append(paths, "dcat."+sub)
	}
	for _, sub := range []string{"medallion", "contract_required", "consent_required", "odrl_action", "purpose", "expose"} {
		paths = append(paths, "dataspace."+sub)
	}
	codes := make(map[string]byte, len(paths))
	for i, p := range paths {
		codes[p] = byte(i)
	}
	return paths, codes
}()

func (w *provWriter) entry(path string, s statement, all []statement) {
	code, ok := provPathCode[path]
	if !ok {
		panic("snapshot: provenance path without a code: " + path)
	}
	w.buf = append(w.buf, code)
	w.origins(s, all)
}

func (w *provWriter) extra(key string, s statement) {
	w.buf = append(w.buf, provExtra)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(key)))
	w.buf = append(w.buf, key...)
	w.origins(s, nil)
}

func (w *provWriter) origins(s statement, all []statement) {
	w.origin(s)
	if len(all) <= 1 {
		w.buf = append(w.buf, 0)
		return
	}
	w.buf = binary.AppendUvarint(w.buf, uint64(len(all)))
	for _, a := range all {
		w.origin(a)
	}
}

func (w *provWriter) origin(s statement) {
	w.buf = append(w.buf, s.layer.code)
	w.buf = binary.AppendUvarint(w.buf, uint64(s.value.Pos.Line))
	w.buf = binary.AppendUvarint(w.buf, uint64(s.value.Pos.Column))
}

// appendProvenanceJSON renders a provenance record as the provenance object:
// each path to {"layer","file","line","column"} and, where several layers
// combine, "merged_from".
func appendProvenanceJSON(dst, rec []byte, baseFile, overlayFile string) []byte {
	dst = append(dst, '{')
	for i := 0; len(rec) > 0; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		code := rec[0]
		rec = rec[1:]
		if code == provExtra {
			n, k := binary.Uvarint(rec)
			rec = rec[k:]
			dst = yaml11.AppendJSONString(dst, "extra."+string(rec[:n]))
			rec = rec[n:]
		} else {
			dst = yaml11.AppendJSONString(dst, provPaths[code])
		}
		dst = append(dst, ':')
		dst, rec = appendOrigin(dst, rec, baseFile, overlayFile)
		n, k := binary.Uvarint(rec)
		rec = rec[k:]
		if n > 0 {
			dst = append(dst, `,"merged_from":[`...)
			for j := uint64(0); j < n; j++ {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst, rec = appendOrigin(dst, rec, baseFile, overlayFile)
				dst = append(dst, '}')
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendOrigin writes an origin object without its closing brace.
func appendOrigin(dst, rec []byte, baseFile, overlayFile string) ([]byte, []byte) {
	code := rec[0]
	line, k := binary.Uvarint(rec[1:])
	col, k2 := binary.Uvarint(rec[1+k:])
	file := baseFile
	if code == layerOverlayDefaults || code == layerOverlaySource {
		file = overlayFile
	}
	dst = append(dst, `{"layer":`...)
	dst = yaml11.AppendJSONString(dst, layerNames[code])
	dst = append(dst, `,"file":`...)
	dst = yaml11.AppendJSONString(dst, file)
	dst = append(dst, `,"line":`...)
	dst = strconv.AppendUint(dst, line, 10)
	dst = append(dst, `,"column":`...)
	dst = strconv.AppendUint(dst, col, 10)
	return dst, rec[1+k+k2:]
}

package api

import (
	"bytes"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/graph"
	"github.com/celine-eu/governanced/internal/jsonstring"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// The bodies of the answers about the served tree, written by hand: a rule
// body writes tens of strings, and a service reads thousands a second. The
// snapshot holds the data; what is the same for every request is encoded
// once, when first asked for, and kept: a dataset's rule part with the
// dataset (snapshot.Memo), the rest of a revision's with the revision
// (revisionAnswers). Every string goes through jsonstring, byte for byte as
// encoding/json writes it.

// appendString writes s as a JSON string.
func appendString(buf *bytes.Buffer, s string) {
	buf.Write(jsonstring.Append(buf.AvailableBuffer(), s))
}

// appendOptString writes s as a JSON string, null for "".
func appendOptString(buf *bytes.Buffer, s string) {
	if s == "" {
		buf.WriteString("null")
		return
	}
	appendString(buf, s)
}

func appendBool(buf *bytes.Buffer, b bool) { buf.WriteString(strconv.FormatBool(b)) }

// openEnvelope writes `{"revision":"…"`, the start of every body of
// governanced's own envelope.
func openEnvelope(buf *bytes.Buffer, snap *snapshot.Snapshot) {
	buf.WriteString(`{"revision":`)
	appendString(buf, snap.Revision)
}

// appendRuleBody writes the body of GET /datasets/{id}/rule for a name that
// resolved to d in snap: revision, dataset, app, match, rule, exposure,
// is_empty and, when explain, provenance. The rule part is parts'.
func appendRuleBody(buf *bytes.Buffer, snap *snapshot.Snapshot, name string, d *snapshot.Dataset, explain bool, parts *ruleParts) {
	openEnvelope(buf, snap)
	buf.WriteString(`,"dataset":`)
	nameJSON := jsonstring.Append(buf.AvailableBuffer(), name)
	buf.Write(nameJSON)
	buf.WriteString(`,"app":`)
	appendString(buf, d.App.Name)
	buf.WriteString(`,"match":`)
	if m := d.MatchFor(name); m.Kind == governance.MatchExact {
		// The pattern is the name itself: encoded once, and the key's bytes,
		// which are likely out of cache, are not read.
		buf.Write(m.AppendJSONPatternAs(buf.AvailableBuffer(), nameJSON))
	} else {
		appendMatch(buf, m)
	}
	buf.WriteByte(',')
	parts.write(buf, d)
	if explain {
		buf.WriteString(`,"provenance":`)
		buf.Write(d.Rule().AppendProvenanceJSON(buf.AvailableBuffer()))
	}
	buf.WriteByte('}')
}

// AppendRuleBody writes the body GET /datasets/{name}/rule answers for a
// name that resolved to d in snap (explain adds the provenance of every
// field): what `governanced resolve` prints.
func AppendRuleBody(buf *bytes.Buffer, snap *snapshot.Snapshot, name string, d *snapshot.Dataset, explain bool) {
	appendRuleBody(buf, snap, name, d, explain, nil)
}

// AppendEmptyRuleBody writes the rule body of a name in the library's
// empty configuration, which auto_discover returns when it finds nothing:
// the empty rule, matched as the defaults, in no app and no revision.
func AppendEmptyRuleBody(buf *bytes.Buffer, name string) {
	buf.WriteString(`{"revision":null,"dataset":`)
	appendString(buf, name)
	buf.WriteString(`,"app":null`)
	appendResolutionTail(buf, governance.Empty().Defaults, governance.Match{Kind: governance.MatchDefaults})
	buf.WriteByte('}')
}

// appendRulePart writes the part of d's rule body that does not name the
// request, `"rule":…,"exposure":…,"is_empty":…`, to buf, its rule
// merged in a pooled merger's room: a server writes a rule part for every
// dataset read whose part is not kept, and the merge is then made and let
// go of at once. A pooled merger holds the last rule it merged until its
// next merge, or until the pool lets it go.
func appendRulePart(buf *bytes.Buffer, d *snapshot.Dataset) {
	m := mergers.Get().(*governance.ValueMerger)
	defer mergers.Put(m)
	appendRuleAndExposure(buf, d.ValuesIn(m))
}

var mergers = sync.Pool{New: func() any { return new(governance.ValueMerger) }}

// appendRuleAndExposure writes `"rule":…,"exposure":…,"is_empty":…`: the
// rule, its two gates, and whether it carries nothing worth a facet (the
// library's is_empty, which a lineage extractor asks before emitting one).
func appendRuleAndExposure(buf *bytes.Buffer, rule *governance.Rule) {
	buf.WriteString(`"rule":`)
	rule.AppendJSON(buf)
	appendExposureTail(buf, rule)
}

// appendExposureTail writes `,"exposure":…,"is_empty":…`, what follows the
// rule in a rule part.
func appendExposureTail(buf *bytes.Buffer, rule *governance.Rule) {
	buf.WriteString(`,"exposure":`)
	appendExposure(buf, rule)
	buf.WriteString(`,"is_empty":`)
	appendBool(buf, governance.IsEmpty(rule))
}

// appendResolutionTail writes `,"match":…,"rule":…,"exposure":…,"is_empty":…`
// for a rule and how it was found: the part of a rule body that does not
// name the request, and all of POST /resolve's but the dataset.
func appendResolutionTail(buf *bytes.Buffer, rule *governance.Rule, m governance.Match) {
	buf.WriteString(`,"match":`)
	appendMatch(buf, m)
	buf.WriteByte(',')
	appendRuleAndExposure(buf, rule)
}

// appendMatch writes m as Match.MarshalJSON does, into buf's own space.
func appendMatch(buf *bytes.Buffer, m governance.Match) {
	buf.Write(m.AppendJSON(buf.AvailableBuffer()))
}

// appendExposure writes {"expose":…,"dataspace_expose":…,"conflict":…}.
func appendExposure(buf *bytes.Buffer, rule *governance.Rule) {
	buf.WriteString(`{"expose":`)
	appendBool(buf, governance.EffectiveExpose(rule))
	buf.WriteString(`,"dataspace_expose":`)
	appendBool(buf, governance.DataspaceExpose(rule))
	buf.WriteString(`,"conflict":`)
	appendOptString(buf, governance.ExposureConflict(rule))
	buf.WriteByte('}')
}

// appendExposureBody writes the body of GET /datasets/{id}/exposure.
func appendExposureBody(buf *bytes.Buffer, snap *snapshot.Snapshot, name string, d *snapshot.Dataset) {
	openEnvelope(buf, snap)
	buf.WriteString(`,"dataset":`)
	appendString(buf, name)
	buf.WriteString(`,"app":`)
	appendString(buf, d.App.Name)
	appendGates(buf, d)
	buf.WriteByte('}')
}

// appendGates writes `,"expose":…,"dataspace_expose":…,"conflict":…`: d's
// exposure gates, as the exposure body and a listing item say them.
func appendGates(buf *bytes.Buffer, d *snapshot.Dataset) {
	buf.WriteString(`,"expose":`)
	appendBool(buf, d.Expose)
	buf.WriteString(`,"dataspace_expose":`)
	appendBool(buf, d.DataspaceExpose)
	buf.WriteString(`,"conflict":`)
	appendOptString(buf, d.Conflict())
}

// appendListBody writes the body of GET /datasets for a page; withRule
// adds each item's resolved rule (appendListItem).
func appendListBody(buf *bytes.Buffer, snap *snapshot.Snapshot, p snapshot.Page, withRule bool) {
	openEnvelope(buf, snap)
	buf.WriteString(`,"items":[`)
	for i, h := range p.Items {
		if i > 0 {
			buf.WriteByte(',')
		}
		appendListItem(buf, snap, h, withRule)
	}
	buf.WriteString(`],"next":`)
	appendOptString(buf, p.Next)
	buf.WriteByte('}')
}

// appendListItem writes one item of GET /datasets. withRule adds "rule":
// the body GET /datasets/{id}/rule?app={app} answers for the item's key, so
// that a client can mirror every resolved rule of the tree from the listing.
// Its rule parts are encoded afresh and not kept: a listing reads each
// dataset once, and would push out of the kept parts (ruleParts) those of
// the datasets services read again and again.
// A dataset a search by words found says how: "search", its score and the
// fields its words were found in.
func appendListItem(buf *bytes.Buffer, snap *snapshot.Snapshot, h snapshot.Hit, withRule bool) {
	d := h.Dataset
	buf.WriteString(`{"id":`)
	appendString(buf, d.ID())
	buf.WriteString(`,"app":`)
	appendString(buf, d.App.Name)
	buf.WriteString(`,"pattern":`)
	appendBool(buf, d.Pattern)
	appendGates(buf, d)
	if h.Found.Fields != 0 {
		buf.WriteString(`,"search":{"score":`)
		buf.WriteString(strconv.FormatUint(uint64(h.Found.Score), 10))
		buf.WriteString(`,"fields":[`)
		for i, name := range h.Found.Fields.Names() {
			if i > 0 {
				buf.WriteByte(',')
			}
			appendString(buf, name)
		}
		buf.WriteString(`]}`)
	}
	if withRule {
		buf.WriteString(`,"rule":`)
		appendRuleBody(buf, snap, d.ID(), d, false, nil)
	}
	buf.WriteByte('}')
}

// appendAppsBody writes the body of GET /apps.
func appendAppsBody(buf *bytes.Buffer, snap *snapshot.Snapshot) {
	openEnvelope(buf, snap)
	buf.WriteString(`,"items":[`)
	for i, a := range snap.Apps() {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('{')
		appendAppMembers(buf, a)
		buf.WriteString(`,"sources":`)
		buf.WriteString(strconv.Itoa(a.DatasetCount()))
		buf.WriteByte('}')
	}
	buf.WriteString(`]}`)
}

// appendAppMembers writes what GET /apps says of an app, and GET
// /apps/{app} first: `"name":…,"file":…,"overlay_file":…,"active":…`.
func appendAppMembers(buf *bytes.Buffer, a *snapshot.App) {
	buf.WriteString(`"name":`)
	appendString(buf, a.Name)
	buf.WriteString(`,"file":`)
	appendString(buf, a.File)
	buf.WriteString(`,"overlay_file":`)
	appendOptString(buf, a.OverlayFile)
	buf.WriteString(`,"active":`)
	appendBool(buf, a.Config.Active)
}

// appendAppBody writes the body of GET /apps/{app}: every source of the app,
// so encoded on request rather than held beside the rule bodies that
// already say the same.
func appendAppBody(buf *bytes.Buffer, snap *snapshot.Snapshot, a *snapshot.App) {
	openEnvelope(buf, snap)
	buf.WriteByte(',')
	appendAppMembers(buf, a)
	buf.WriteString(`,"defaults":`)
	a.Config.Defaults.AppendJSON(buf)
	buf.WriteString(`,"depends_on":`)
	if !a.Config.DependsOnSet {
		buf.WriteString("null")
	} else {
		buf.WriteByte('[')
		for i, dep := range a.Config.DependsOn {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(`{"dataset":`)
			appendString(buf, dep.Dataset)
			buf.WriteString(`,"external":`)
			appendBool(buf, dep.External)
			buf.WriteString(`,"optional":`)
			appendBool(buf, dep.Optional)
			buf.WriteString(`,"description":`)
			if dep.Description == nil {
				buf.WriteString("null")
			} else {
				appendString(buf, *dep.Description)
			}
			buf.WriteByte('}')
		}
		buf.WriteByte(']')
	}
	buf.WriteString(`,"sources":{`)
	for i, src := range a.Config.Sources {
		if i > 0 {
			buf.WriteByte(',')
		}
		appendString(buf, src.Key)
		buf.WriteByte(':')
		src.Rule.AppendJSON(buf)
	}
	buf.WriteString(`}}`)
}

// revisionAnswers are the bodies of one revision that are the same for
// every request, each encoded when first asked for: on a large tree the
// graph's and the report's renderings are megabytes, and rendering them for
// every request let a few clients take the memory of many.
type revisionAnswers struct {
	snap    *snapshot.Snapshot
	apps    onceBody
	graphs  [2][len(graphFormats)]onceBody // by overlays, then format
	reports sync.Map                       // format → *onceBody
}

// onceBody is a body made once.
type onceBody struct {
	once sync.Once
	body []byte
	err  error
}

func (o *onceBody) get(make func() ([]byte, error)) ([]byte, error) {
	o.once.Do(func() { o.body, o.err = make() })
	return o.body, o.err
}

// answerCache holds the answers of the revision being served.
type answerCache struct {
	cur atomic.Pointer[revisionAnswers]
}

// of is snap's answers: those of the revision being served are kept until
// another is; a request still answering from an earlier one gets answers
// of its own, kept by no one.
func (c *answerCache) of(store *snapshot.Store, snap *snapshot.Snapshot) *revisionAnswers {
	for {
		cur := c.cur.Load()
		if cur != nil && cur.snap == snap {
			return cur
		}
		a := &revisionAnswers{snap: snap}
		if store.Current() != snap || c.cur.CompareAndSwap(cur, a) {
			return a
		}
	}
}

// appsBody is the body of GET /apps.
func (a *revisionAnswers) appsBody() []byte {
	body, _ := a.apps.get(func() ([]byte, error) {
		var buf bytes.Buffer
		appendAppsBody(&buf, a.snap)
		return buf.Bytes(), nil
	})
	return body
}

// graphFormats are the renderings of GET /graph, by index.
var graphFormats = [...]graph.Format{graph.JSON, graph.Tree, graph.Order, graph.Mermaid}

// graphBody is the body of GET /graph in a format of graphFormats: for
// graph.JSON the json rendering's members (graph.md §8.4) after the
// revision and which reading it is (`overlays`), for the others the
// rendering as `governanced graph` prints it.
func (a *revisionAnswers) graphBody(overlays bool, f graph.Format) []byte {
	i := 0
	for i < len(graphFormats) && graphFormats[i] != f {
		i++
	}
	reading := 0
	if overlays {
		reading = 1
	}
	body, _ := a.graphs[reading][i].get(func() ([]byte, error) {
		g := a.snap.GraphOf(overlays)
		var buf bytes.Buffer
		if f != graph.JSON {
			// Writing to a bytes.Buffer cannot fail.
			_ = graph.Render(&buf, g, f)
			return buf.Bytes(), nil
		}
		openEnvelope(&buf, a.snap)
		buf.WriteString(`,"overlays":`)
		appendBool(&buf, overlays)
		buf.WriteByte(',')
		_ = graph.WriteJSONMembers(&buf, g)
		buf.WriteByte('}')
		return buf.Bytes(), nil
	})
	return body
}

// reportBody is the check report the revision passed, in a format of
// reportTypes.
func (a *revisionAnswers) reportBody(format string) ([]byte, error) {
	v, _ := a.reports.LoadOrStore(format, &onceBody{})
	return v.(*onceBody).get(func() ([]byte, error) {
		var buf bytes.Buffer
		rep := a.snap.Report()
		switch {
		case format == "json":
			err := rep.WriteJSON(&buf)
			return bytes.TrimSpace(buf.Bytes()), err
		case format == "sarif" && a.snap.SARIFBases() != nil:
			err := rep.WriteSARIFIn(&buf, a.snap.SARIFBases())
			return buf.Bytes(), err
		}
		err := rep.Write(&buf, format)
		return buf.Bytes(), err
	})
}

package governance

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/celine-eu/governanced/internal/jsonstring"
)

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// jsonWriter writes an object's members in a fixed order.
type jsonWriter struct {
	buf   *bytes.Buffer
	first bool
}

func (w *jsonWriter) open()  { w.buf.WriteByte('{'); w.first = true }
func (w *jsonWriter) close() { w.buf.WriteByte('}') }

func (w *jsonWriter) key(k string) {
	w.next()
	writeString(w.buf, k)
	w.buf.WriteByte(':')
}

// field is key for a field name of the format (the tables' keys), which is
// ASCII that JSON writes as it is (TestFieldNamesNeedNoEscape): written
// without looking for what to escape, as every rule body writes a dozen.
func (w *jsonWriter) field(k string) {
	w.next()
	w.buf.WriteByte('"')
	w.buf.WriteString(k)
	w.buf.WriteString(`":`)
}

// next separates a member from the one before it.
func (w *jsonWriter) next() {
	if !w.first {
		w.buf.WriteByte(',')
	}
	w.first = false
}

func writeString(buf *bytes.Buffer, s string) {
	buf.Write(jsonstring.Append(buf.AvailableBuffer(), s))
}

func writeOptString(buf *bytes.Buffer, s *string) {
	if s == nil {
		buf.WriteString("null")
		return
	}
	writeString(buf, *s)
}

// writeOptText writes a text a rule's method gave, null for none.
func writeOptText(buf *bytes.Buffer, s string, ok bool) {
	if ok {
		writeString(buf, s)
	} else {
		buf.WriteString("null")
	}
}

func writeStrings(buf *bytes.Buffer, ss []string) { writeArray(buf, ss, writeString) }

// writeArray writes items as a JSON array, each by write.
func writeArray[T any](buf *bytes.Buffer, items []T, write func(*bytes.Buffer, T)) {
	buf.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		write(buf, it)
	}
	buf.WriteByte(']')
}

// writeRowFilters writes row filters as the JSON array of their own
// encodings.
func writeRowFilters(buf *bytes.Buffer, rfs []RowFilter) {
	writeArray(buf, rfs, func(buf *bytes.Buffer, rf RowFilter) { buf.WriteString(rf.JSON) })
}

// MarshalJSON renders the set-field view (governance-format.md §13): only the
// fields a file stated, an explicit null as null, sub-blocks likewise, in the
// canonical key order.
func (r *Rule) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	r.writeJSON(&buf, nil)
	return buf.Bytes(), nil
}

// AppendJSON appends the set-field view to buf; the server encodes rule bodies
// with it.
func (r *Rule) AppendJSON(buf *bytes.Buffer) { r.writeJSON(buf, nil) }

// A Member is one member of the object AppendJSONMembers wrote: its field,
// and where it ends in the buffer.
type Member struct {
	Field Field
	End   int
}

// MaxMembers is the most members AppendJSONMembers reports for a rule:
// one a field, the extra mapping's keys together as one.
const MaxMembers = int(numFields)

// AppendJSONMembers is AppendJSON appending to members, for each member of
// the rule's object in the order written, its field and the buffer's
// length after it: for a writer that keeps a rule's members apart, as the
// server's kept rule parts share the members many rules write alike.
func (r *Rule) AppendJSONMembers(buf *bytes.Buffer, members []Member) []Member {
	r.writeJSON(buf, func(f int) { members = append(members, Member{Field(f), buf.Len()}) })
	return members
}

// writeJSON writes the set-field view; ended, when not nil, is called after
// each member.
func (r *Rule) writeJSON(buf *bytes.Buffer, ended func(f int)) {
	rare := r.rareBlock()
	set := uint32(r.Set)
	if len(rare.extra) == 0 {
		set &^= 1 << FieldExtra
	}
	writeFields(buf, r, set, fieldKeys[:], ruleFields[:], ended, func(f int) {
		if s := &rareFieldTable[f]; s.tabled() {
			s.write(buf, rare)
			return
		}
		switch Field(f) {
		case FieldTitle:
			title, ok := r.Title()
			writeOptText(buf, title, ok)
		case FieldDescription:
			description, ok := r.Description()
			writeOptText(buf, description, ok)
		case FieldOwnership:
			AppendJSONOwnership(buf, r.Ownership())
		case FieldRowFilters:
			writeRowFilters(buf, rare.rowFilters)
		case FieldDcat:
			r.Dcat.writeJSON(buf)
		case FieldOntology:
			rare.ontology.writeJSON(buf)
		case FieldDataspace:
			r.Dataspace.writeJSON(buf)
		case FieldExtra:
			ew := jsonWriter{buf: buf}
			ew.open()
			for _, e := range rare.extra {
				ew.key(e.Key)
				e.Value.AppendJSON(buf)
			}
			ew.close()
		}
	})
}

// writeFields writes block b's fields in set as a JSON object, in table
// order under their keys: the table writes its kinds, other the rest.
// ended, when not nil, is called after each member.
func writeFields[B any](buf *bytes.Buffer, b *B, set uint32, keys []string, table []fieldOf[B], ended, other func(f int)) {
	w := jsonWriter{buf: buf}
	w.open()
	for f := range table {
		if set&(1<<f) == 0 {
			continue
		}
		w.field(keys[f])
		if s := &table[f]; s.tabled() {
			s.write(buf, b)
		} else {
			other(f)
		}
		if ended != nil {
			ended(f)
		}
	}
	w.close()
}

func (d *Dcat) writeJSON(buf *bytes.Buffer) {
	if d == nil {
		buf.WriteString("null")
		return
	}
	writeFields(buf, d, uint32(d.Set), dcatKeys[:], dcatFields[:], nil, func(int) {
		// dcat.temporal, the one field of a kind of its own
		if d.Temporal == nil {
			buf.WriteString("null")
			return
		}
		tw := jsonWriter{buf: buf}
		tw.open()
		if d.Temporal.StartSet {
			tw.key("start")
			writeOptString(buf, d.Temporal.Start)
		}
		if d.Temporal.EndSet {
			tw.key("end")
			writeOptString(buf, d.Temporal.End)
		}
		tw.close()
	})
}

func (o *Ontology) writeJSON(buf *bytes.Buffer) {
	if o == nil {
		buf.WriteString("null")
		return
	}
	w := jsonWriter{buf: buf}
	w.open()
	if o.SpecSet {
		w.key("spec")
		writeOptString(buf, o.Spec)
	}
	if o.SpecFileSet {
		w.key("spec_file")
		writeOptString(buf, o.SpecFile)
	}
	w.close()
}

func (d *Dataspace) writeJSON(buf *bytes.Buffer) {
	if d == nil {
		buf.WriteString("null")
		return
	}
	writeFields(buf, d, uint32(d.Set), dataspaceKeys[:], dataspaceFields[:], nil, nil)
}

// MarshalJSON renders a whole document: active, depends_on (null when not
// declared), defaults, sources and their order.
func (c *Config) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	w := jsonWriter{buf: &buf}
	w.open()
	w.key("active")
	buf.WriteString(strconv.FormatBool(c.Active))
	w.key("depends_on")
	if !c.DependsOnSet {
		buf.WriteString("null")
	} else {
		deps := c.DependsOn
		if deps == nil {
			deps = []Dependency{}
		}
		b, err := marshalNoEscape(deps)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	w.key("defaults")
	c.Defaults.writeJSON(&buf, nil)
	w.key("sources")
	sw := jsonWriter{buf: &buf}
	sw.open()
	for _, s := range c.Sources {
		sw.key(s.Key)
		s.Rule.writeJSON(&buf, nil)
	}
	sw.close()
	w.key("source_order")
	buf.WriteByte('[')
	for i, s := range c.Sources {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(&buf, s.Key)
	}
	buf.WriteByte(']')
	w.close()
	return buf.Bytes(), nil
}

// AppendJSONOwnership appends an ownership list as a rule's JSON view
// writes it: for a writer that keeps a rule's other members encoded and
// writes its owners from the rule (the server's kept rule parts).
func AppendJSONOwnership(buf *bytes.Buffer, owners []Owner) {
	buf.WriteByte('[')
	for i, o := range owners {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"name":`)
		writeString(buf, o.Name)
		buf.WriteString(`,"type":`)
		writeString(buf, o.Type)
		buf.WriteByte('}')
	}
	buf.WriteByte(']')
}

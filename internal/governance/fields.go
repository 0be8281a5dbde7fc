package governance

import (
	"bytes"
	"strconv"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// fieldOf says how one field of a block B (Rule, its rareFields, Dcat,
// Dataspace) is read, rendered, merged and shared, by its kind: the one
// accessor set says which. ruleFields, rareFieldTable, dcatFields and
// dataspaceFields are the tables that
// parse, render, MergeRules and the shared values read, so that a field's
// kind is stated once. A field of a kind of its own (ownership, row
// filters, a sub-block, dcat.temporal, the extra keys) has no accessor and
// is handled by name where it is read.
type fieldOf[B any] struct {
	optString func(*B) **string   // a string or null
	optBool   func(*B) *OptBool   // a lax boolean or null (CoerceBool)
	optInt    func(*B) **int64    // an integer or null (retention)
	text      func(*B) *string    // a string
	flag      func(*B) *bool      // a lax boolean (CoerceBool)
	list      func(*B) *[]string  // a list of strings
	listRef   func(*B) **[]string // a list of strings, held by the pointer the values share it by (a rule's tags: parsed and written here, unioned by MergeRules)

	// combined: every stating layer contributes to the merged value (a
	// boolean OR-ed, a list's sorted union) rather than the last one's
	// winning.
	combined bool
}

// listOf is the list p points to; nil for none.
func listOf(p *[]string) []string {
	if p == nil {
		return nil
	}
	return *p
}

// tabled reports whether the field is of a kind the table handles.
func (s *fieldOf[B]) tabled() bool {
	return s.optString != nil || s.optBool != nil || s.optInt != nil || s.text != nil || s.flag != nil || s.list != nil || s.listRef != nil
}

// parse reads v, the field's value, into b; fp names the field in errors.
func (s *fieldOf[B]) parse(vs *values, b *B, v *yaml11.Node, fp string) (err error) {
	switch {
	case s.optString != nil:
		*s.optString(b), err = vs.optString(v, fp)
	case s.optBool != nil:
		if v.Kind != yaml11.Null {
			var x bool
			x, err = parseBool(v, fp)
			*s.optBool(b) = OptBoolOf(x)
		}
	case s.optInt != nil:
		*s.optInt(b), err = vs.retention(v, fp)
	case s.text != nil:
		var t string
		t, err = parseString(v, fp)
		*s.text(b) = vs.text(t)
	case s.flag != nil:
		*s.flag(b), err = parseBool(v, fp)
	case s.list != nil:
		*s.list(b), err = vs.strings(v, fp)
	case s.listRef != nil:
		*s.listRef(b), err = vs.stringsRef(v, fp)
	}
	return err
}

// write renders b's value of the field as JSON.
func (s *fieldOf[B]) write(buf *bytes.Buffer, b *B) {
	switch {
	case s.optString != nil:
		writeOptString(buf, *s.optString(b))
	case s.optBool != nil:
		if x := *s.optBool(b); !x.Stated() {
			buf.WriteString("null")
		} else {
			buf.WriteString(strconv.FormatBool(x.Value()))
		}
	case s.optInt != nil:
		if n := *s.optInt(b); n == nil {
			buf.WriteString("null")
		} else {
			buf.WriteString(strconv.FormatInt(*n, 10))
		}
	case s.text != nil:
		writeString(buf, *s.text(b))
	case s.flag != nil:
		buf.WriteString(strconv.FormatBool(*s.flag(b)))
	case s.list != nil:
		writeStrings(buf, *s.list(b))
	case s.listRef != nil:
		writeStrings(buf, listOf(*s.listRef(b)))
	}
}

// take gives dst src's value of the field.
func (s *fieldOf[B]) take(dst, src *B) {
	switch {
	case s.optString != nil:
		*s.optString(dst) = *s.optString(src)
	case s.optBool != nil:
		*s.optBool(dst) = *s.optBool(src)
	case s.optInt != nil:
		*s.optInt(dst) = *s.optInt(src)
	case s.text != nil:
		*s.text(dst) = *s.text(src)
	case s.flag != nil:
		*s.flag(dst) = *s.flag(src)
	case s.list != nil:
		*s.list(dst) = *s.list(src)
	}
}

// combine gives dst the value of a combined field every layer contributes
// to: a and b's booleans OR-ed, or their lists' sorted union.
func (s *fieldOf[B]) combine(dst, a, b *B) {
	switch {
	case s.flag != nil:
		*s.flag(dst) = *s.flag(a) || *s.flag(b)
	case s.list != nil:
		*s.list(dst) = sortedUnion(*s.list(a), *s.list(b))
	}
}

// key appends b's value of the field to the scratch key of vs.
func (s *fieldOf[B]) key(vs *values, b *B) {
	switch {
	case s.optString != nil:
		vs.keyString(*s.optString(b))
	case s.optInt != nil:
		vs.keyInt(*s.optInt(b))
	case s.text != nil:
		vs.keyString(s.text(b))
	case s.flag != nil:
		vs.keyBool(*s.flag(b))
	case s.list != nil:
		vs.keyList(*s.list(b))
	}
}

// ruleFields are the kinds of a rule's own fields, by Field; rareFieldTable
// those of its rare fields (Field.isRare), kept in its rareFields. The
// title and description, kept in the document's texts (textBlock), are of
// a kind of their own.
var ruleFields = [numFields]fieldOf[Rule]{
	FieldExpose:         {optBool: func(r *Rule) *OptBool { return &r.Expose }},
	FieldLicense:        {optString: func(r *Rule) **string { return &r.License }},
	FieldAccessLevel:    {optString: func(r *Rule) **string { return &r.AccessLevel }},
	FieldClassification: {optString: func(r *Rule) **string { return &r.Classification }},
	FieldTags:           {listRef: func(r *Rule) **[]string { return &r.tags }, combined: true},
}

var rareFieldTable = [numFields]fieldOf[rareFields]{
	FieldAttribution:        {optString: func(r *rareFields) **string { return &r.attribution }},
	FieldAccessRequirements: {optString: func(r *rareFields) **string { return &r.accessRequirements }},
	FieldRetentionDays:      {optInt: func(r *rareFields) **int64 { return &r.retentionDays }},
	FieldDocumentationURL:   {optString: func(r *rareFields) **string { return &r.documentationURL }},
	FieldSourceSystem:       {optString: func(r *rareFields) **string { return &r.sourceSystem }},
	FieldUserFilterColumn:   {optString: func(r *rareFields) **string { return &r.userFilterColumn }},
}

// dcatFields are the kinds of the dcat fields, by DcatField.
var dcatFields = [numDcatFields]fieldOf[Dcat]{
	DcatPublisherURI:       {optString: func(d *Dcat) **string { return &d.PublisherURI }},
	DcatThemes:             {list: func(d *Dcat) *[]string { return &d.Themes }},
	DcatLanguageURIs:       {list: func(d *Dcat) *[]string { return &d.LanguageURIs }},
	DcatSpatialURIs:        {list: func(d *Dcat) *[]string { return &d.SpatialURIs }},
	DcatAccrualPeriodicity: {optString: func(d *Dcat) **string { return &d.AccrualPeriodicity }},
	DcatConformsTo:         {optString: func(d *Dcat) **string { return &d.ConformsTo }},
}

// dataspaceFields are the kinds of the dataspace fields, by
// DataspaceField.
var dataspaceFields = [numDSFields]fieldOf[Dataspace]{
	DSMedallion:        {optString: func(d *Dataspace) **string { return &d.Medallion }},
	DSContractRequired: {flag: func(d *Dataspace) *bool { return &d.ContractRequired }, combined: true},
	DSConsentRequired:  {flag: func(d *Dataspace) *bool { return &d.ConsentRequired }, combined: true},
	DSOdrlAction:       {text: func(d *Dataspace) *string { return &d.OdrlAction }},
	DSPurpose:          {list: func(d *Dataspace) *[]string { return &d.Purpose }, combined: true},
	DSExpose:           {flag: func(d *Dataspace) *bool { return &d.Expose }},
}

// parseSubBlock reads the keys of sub-block m (dcat, dataspace) that keys
// names into b by table, recording each in set; path names m in errors.
// Other keys are dropped, as the reference's model drops them (EDC
// sub-objects another component adds: the schema allows them). other
// reads a field the table does not handle.
func parseSubBlock[B any](vs *values, b *B, m *yaml11.Node, path string, keys []string, table []fieldOf[B], set *uint8,
	other func(f int, v *yaml11.Node, fp string) error) error {
	for _, pair := range m.Pairs {
		if pair.Key.Kind != yaml11.String {
			continue
		}
		f := indexOf(keys, pair.Key.Str)
		if f < 0 {
			continue
		}
		fp := path + "/" + pair.Key.Str
		var err error
		if s := &table[f]; s.tabled() {
			err = s.parse(vs, b, pair.Value, fp)
		} else {
			err = other(f, pair.Value, fp)
		}
		if err != nil {
			return err
		}
		*set |= 1 << f
	}
	return nil
}

func indexOf(keys []string, k string) int {
	for i, key := range keys {
		if key == k {
			return i
		}
	}
	return -1
}

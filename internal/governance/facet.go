package governance

import (
	"bytes"
	"strconv"
)

// SchemaURL is the facet's _schemaURL. It is embedded in every lineage event
// already stored, so it is a contract: never configurable, never changed.
const SchemaURL = "https://celine-eu.github.io/schema/GovernanceDatasetFacet.schema.json"

// DefaultProducer is the _producer governanced writes when a caller names none.
const DefaultProducer = "https://github.com/celine-eu/governanced"

// Facet is the OpenLineage governance facet of a rule, a JSON object rendered in
// the fixed key order of facet.md §2.
type Facet []byte

// BuildFacet projects a resolved rule onto the facet: camelCase keys, empty
// values omitted (never null), dataspace fields only when includeDataspace.
func BuildFacet(r *Rule, producer string, includeDataspace bool) Facet {
	var buf bytes.Buffer
	w := jsonWriter{buf: &buf}
	w.open()
	w.key("_producer")
	writeString(&buf, producer)
	w.key("_schemaURL")
	writeString(&buf, SchemaURL)
	text := func(key string, v string) {
		if v != "" {
			w.key(key)
			writeString(&buf, v)
		}
	}
	str := func(key string, v *string) {
		if v != nil {
			text(key, *v)
		}
	}
	rare := r.rareBlock()
	title, _ := r.Title()
	text("title", title)
	description, _ := r.Description()
	text("description", description)
	str("license", r.License)
	str("attribution", rare.attribution)
	if len(r.Ownership()) > 0 {
		w.key("owners")
		names := make([]string, len(r.Ownership()))
		for i, o := range r.Ownership() {
			names[i] = o.Name
		}
		writeStrings(&buf, names)
	}
	str("accessLevel", r.AccessLevel)
	str("accessRequirements", rare.accessRequirements)
	str("classification", r.Classification)
	if len(r.Tags()) > 0 {
		w.key("tags")
		writeStrings(&buf, r.Tags())
	}
	if rare.retentionDays != nil {
		w.key("retentionDays")
		buf.WriteString(strconv.FormatInt(*rare.retentionDays, 10))
	}
	str("documentationUrl", rare.documentationURL)
	str("sourceSystem", rare.sourceSystem)
	if len(rare.rowFilters) > 0 {
		w.key("rowFilters")
		writeRowFilters(&buf, rare.rowFilters)
	}
	if d := r.Dataspace; includeDataspace && d != nil {
		str("medallion", d.Medallion)
		if d.ContractRequired {
			w.key("contractRequired")
			buf.WriteString("true")
		}
		if d.ConsentRequired {
			w.key("consentRequired")
			buf.WriteString("true")
		}
		if d.OdrlAction != "use" {
			w.key("odrlAction")
			writeString(&buf, d.OdrlAction)
		}
		if len(d.Purpose) > 0 {
			w.key("purpose")
			writeStrings(&buf, d.Purpose)
		}
	}
	w.close()
	return Facet(buf.Bytes())
}

// MarshalJSON returns the facet as is.
func (f Facet) MarshalJSON() ([]byte, error) { return f, nil }

// IsEmpty reports whether a rule carries nothing worth a facet. The dataspace,
// expose, dcat, ontology and extra fields are not considered (reference
// behaviour: a rule with only dataspace.medallion is "empty").
func IsEmpty(r *Rule) bool {
	rare := r.rareBlock()
	if t, _ := r.Title(); t != "" {
		return false
	}
	if d, _ := r.Description(); d != "" {
		return false
	}
	for _, s := range []*string{r.License, rare.attribution, r.AccessLevel,
		rare.accessRequirements, r.Classification, rare.documentationURL, rare.sourceSystem} {
		if s != nil && *s != "" {
			return false
		}
	}
	return len(r.Ownership()) == 0 && len(r.Tags()) == 0 && len(rare.rowFilters) == 0 && rare.retentionDays == nil
}

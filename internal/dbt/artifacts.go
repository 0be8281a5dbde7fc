package dbt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/celine-eu/governanced/internal/policy"
	"github.com/celine-eu/governanced/internal/textpos"
)

// Manifest schema versions this package reads (spec §8: dbt 1.6 → v10,
// 1.7 → v11, ≥ 1.8 → v12).
const (
	MinManifestVersion = 10
	MaxManifestVersion = 12
)

// Manifest is the part of a dbt manifest.json the changeset builder uses.
type Manifest struct {
	// SchemaVersion is the N of .../manifest/vN.json.
	SchemaVersion int
	DBTVersion    string
	AdapterType   string
	Nodes         map[string]*Node
	Exposures     map[string]*Exposure
	// Sources are the manifest's sources, for column lineage (level 2)
	// to tell which relation a compiled statement reads.
	Sources map[string]*SourceNode
	// ChildMap is dbt's child_map; nil when the manifest has none, in which
	// case the graph is rebuilt from depends_on.
	ChildMap map[string][]string
	// dependents are every resource with depends_on (nodes, exposures,
	// metrics, semantic models, saved queries), for the depends_on fallback.
	dependents map[string][]string
	// Warnings are things the reader accepted but a user should know, such
	// as a manifest newer than this package knows.
	Warnings []string
}

// Node is a manifest node: a model, snapshot, seed, test or any other
// resource under `nodes`.
type Node struct {
	UniqueID         string `json:"unique_id"`
	ResourceType     string `json:"resource_type"`
	Name             string `json:"name"`
	PackageName      string `json:"package_name"`
	OriginalFilePath string `json:"original_file_path"`
	Language         string `json:"language"`
	Version          any    `json:"version"`
	LatestVersion    any    `json:"latest_version"`
	// database, schema and relation_name.
	location
	Alias    *string                    `json:"alias"`
	Meta     map[string]any             `json:"meta"`
	Config   metaConfig                 `json:"config"`
	Columns  map[string]*ManifestColumn `json:"columns"`
	Checksum struct {
		Checksum string `json:"checksum"`
	} `json:"checksum"`
	CompiledCode string    `json:"compiled_code"`
	DependsOn    dependsOn `json:"depends_on"`
	AttachedNode string    `json:"attached_node"`
	ColumnName   string    `json:"column_name"`
	TestMetadata *struct {
		Name   string         `json:"name"`
		Kwargs map[string]any `json:"kwargs"`
	} `json:"test_metadata"`
}

// ManifestColumn is a documented column.
type ManifestColumn struct {
	Name     string         `json:"name"`
	Meta     map[string]any `json:"meta"`
	Config   metaConfig     `json:"config"`
	DataType string         `json:"data_type"`
}

// Exposure is a manifest exposure.
type Exposure struct {
	UniqueID  string         `json:"unique_id"`
	Name      string         `json:"name"`
	Type      any            `json:"type"`
	Owner     map[string]any `json:"owner"`
	Meta      map[string]any `json:"meta"`
	Config    metaConfig     `json:"config"`
	DependsOn dependsOn      `json:"depends_on"`
	Label     any            `json:"label"`
	Maturity  any            `json:"maturity"`
	URL       any            `json:"url"`
}

type metaConfig struct {
	Meta         map[string]any `json:"meta"`
	Materialized string         `json:"materialized"`
}

// SourceNode is a manifest source: a relation dbt reads but does not build.
type SourceNode struct {
	UniqueID   string `json:"unique_id"`
	Name       string `json:"name"`
	Identifier string `json:"identifier"`
	// database, schema and relation_name.
	location
}

// location is where a node or a source is in the warehouse, as the
// manifest states it: a database and a schema, and the relation name dbt
// quotes (nil when the manifest has none, as for an ephemeral model).
type location struct {
	Database     *string `json:"database"`
	Schema       *string `json:"schema"`
	RelationName *string `json:"relation_name"`
}

// dotted is database.schema.name, of the database and schema the parts
// stated, as written.
func (l *location) dotted(name string) string {
	var parts []string
	for _, p := range []*string{l.Database, l.Schema} {
		if p != nil && *p != "" {
			parts = append(parts, *p)
		}
	}
	return strings.Join(append(parts, name), ".")
}

// lowerParts are database, schema and name in lower case, the ones stated:
// how compiled SQL names the relation when the manifest gives no relation
// name.
func (l *location) lowerParts(name string) []string {
	var parts []string
	for _, p := range []string{deref(l.Database), deref(l.Schema), name} {
		if p != "" {
			parts = append(parts, strings.ToLower(p))
		}
	}
	return parts
}

// identifier is the relation a source names: its identifier, else its name.
func (s *SourceNode) identifier() string {
	if s.Identifier == "" {
		return s.Name
	}
	return s.Identifier
}

type dependsOn struct {
	Nodes []string `json:"nodes"`
}

// VersionString is a versioned model's version as text: the v11 string "2"
// and the v12 integer 2 are both "2"; "" when unversioned.
func (n *Node) VersionString() string { return versionText(n.Version) }

func versionText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return strconv.FormatInt(i, 10)
		}
		if f, err := t.Float64(); err == nil && f == float64(int64(f)) {
			return strconv.FormatInt(int64(f), 10)
		}
		return t.String()
	}
	return fmt.Sprint(v)
}

// MergedMeta is dbt's "config.meta over top-level meta" (shallow).
func (n *Node) MergedMeta() map[string]any { return overlay(n.Meta, n.Config.Meta) }

// MergedMeta is the column's meta overlaid by its config.meta (dbt ≥ 1.10);
// empty for an undocumented (nil) column.
func (c *ManifestColumn) MergedMeta() map[string]any {
	if c == nil {
		return map[string]any{}
	}
	return overlay(c.Meta, c.Config.Meta)
}

// MergedMeta is the exposure's meta overlaid by its config.meta (dbt ≥ 1.10).
func (e *Exposure) MergedMeta() map[string]any { return overlay(e.Meta, e.Config.Meta) }

func overlay(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = policy.NormalizeValue(v)
	}
	for k, v := range over {
		out[k] = policy.NormalizeValue(v)
	}
	return out
}

// Relation is the warehouse relation the node writes: database.schema.alias
// (the parts dbt knows; the alias defaults to the name).
func (n *Node) Relation() string { return n.dotted(n.alias()) }

// alias is the relation a node writes: its alias, else its name.
func (n *Node) alias() string {
	if n.Alias != nil && *n.Alias != "" {
		return *n.Alias
	}
	return n.Name
}

var schemaVersion = regexp.MustCompile(`/(manifest|catalog)/v(\d+)\.json$`)

// ReadManifest decodes a manifest.json of schema v10–v12. Older schemas are
// refused; newer ones are read best-effort with a warning (spec §8). name
// labels the file in errors.
func ReadManifest(data []byte, name string) (*Manifest, error) {
	var wire struct {
		Metadata struct {
			SchemaVersion string `json:"dbt_schema_version"`
			DBTVersion    string `json:"dbt_version"`
			AdapterType   string `json:"adapter_type"`
		} `json:"metadata"`
		Nodes          map[string]*Node           `json:"nodes"`
		Exposures      map[string]*Exposure       `json:"exposures"`
		Sources        map[string]*SourceNode     `json:"sources"`
		Metrics        map[string]json.RawMessage `json:"metrics"`
		SemanticModels map[string]json.RawMessage `json:"semantic_models"`
		SavedQueries   map[string]json.RawMessage `json:"saved_queries"`
		ChildMap       map[string][]string        `json:"child_map"`
	}
	if err := decodeJSON(data, &wire); err != nil {
		return nil, artifactError(name, data, err)
	}
	m := &Manifest{
		DBTVersion:  wire.Metadata.DBTVersion,
		AdapterType: wire.Metadata.AdapterType,
		Nodes:       wire.Nodes,
		Exposures:   wire.Exposures,
		Sources:     wire.Sources,
		ChildMap:    wire.ChildMap,
	}
	match := schemaVersion.FindStringSubmatch(wire.Metadata.SchemaVersion)
	if match == nil || match[1] != "manifest" {
		return nil, fmt.Errorf("%s: metadata.dbt_schema_version %q is not a dbt manifest schema; is this a manifest.json?", name, wire.Metadata.SchemaVersion)
	}
	m.SchemaVersion, _ = strconv.Atoi(match[2])
	switch {
	case m.SchemaVersion < MinManifestVersion:
		return nil, fmt.Errorf("%s: manifest schema v%d (dbt %s) is older than v%d (dbt 1.6); regenerate it with a newer dbt", name, m.SchemaVersion, m.DBTVersion, MinManifestVersion)
	case m.SchemaVersion > MaxManifestVersion:
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s: manifest schema v%d is newer than v%d; read best-effort", name, m.SchemaVersion, MaxManifestVersion))
	}
	m.Nodes = byUniqueID(m.Nodes, func(n *Node) *string { return &n.UniqueID })
	m.Exposures = byUniqueID(m.Exposures, func(e *Exposure) *string { return &e.UniqueID })
	m.Sources = byUniqueID(m.Sources, func(src *SourceNode) *string { return &src.UniqueID })
	m.dependents = map[string][]string{}
	for uid, n := range m.Nodes {
		m.dependents[uid] = n.DependsOn.Nodes
	}
	for uid, e := range m.Exposures {
		m.dependents[uid] = e.DependsOn.Nodes
	}
	for _, group := range []map[string]json.RawMessage{wire.Metrics, wire.SemanticModels, wire.SavedQueries} {
		for uid, raw := range group {
			var r struct {
				DependsOn dependsOn `json:"depends_on"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, artifactError(name, data, err)
			}
			m.dependents[uid] = r.DependsOn.Nodes
		}
	}
	return m, nil
}

// byUniqueID is a manifest's resources keyed by unique id as the readers
// take them: a map even when the file has none, without the null entries a
// file may hold, each resource's own unique id (uniqueID's field) set to
// its key.
func byUniqueID[R any](m map[string]*R, uniqueID func(*R) *string) map[string]*R {
	if m == nil {
		return map[string]*R{}
	}
	for uid, r := range m {
		if r == nil {
			delete(m, uid)
			continue
		}
		*uniqueID(r) = uid
	}
	return m
}

// Catalog is the part of a catalog.json the builder uses: the columns the
// warehouse really has, per node.
type Catalog struct {
	Nodes map[string]*CatalogNode
	// Sources are the source relations the catalog lists (level 2 expands
	// `select *` over them).
	Sources map[string]*CatalogNode
}

// CatalogNode lists one relation's columns.
type CatalogNode struct {
	Columns map[string]*CatalogColumn `json:"columns"`
}

// eachColumn calls f with each column and its lowercased name (its key when
// the column names none), in no order.
func (cn *CatalogNode) eachColumn(f func(name string, c *CatalogColumn)) {
	for key, c := range cn.Columns {
		if c == nil {
			continue
		}
		name := c.Name
		if name == "" {
			name = key
		}
		f(strings.ToLower(name), c)
	}
}

// CatalogColumn is one warehouse column.
type CatalogColumn struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Index int    `json:"index"`
}

// ReadCatalog decodes a catalog.json (catalog/v1).
func ReadCatalog(data []byte, name string) (*Catalog, error) {
	var wire struct {
		Metadata struct {
			SchemaVersion string `json:"dbt_schema_version"`
		} `json:"metadata"`
		Nodes   map[string]*CatalogNode `json:"nodes"`
		Sources map[string]*CatalogNode `json:"sources"`
	}
	if err := decodeJSON(data, &wire); err != nil {
		return nil, artifactError(name, data, err)
	}
	match := schemaVersion.FindStringSubmatch(wire.Metadata.SchemaVersion)
	if match == nil || match[1] != "catalog" {
		return nil, fmt.Errorf("%s: metadata.dbt_schema_version %q is not a dbt catalog schema; is this a catalog.json?", name, wire.Metadata.SchemaVersion)
	}
	if match[2] != "1" {
		return nil, fmt.Errorf("%s: catalog schema v%s is not supported (catalog/v1 only)", name, match[2])
	}
	c := &Catalog{Nodes: wire.Nodes, Sources: wire.Sources}
	if c.Nodes == nil {
		c.Nodes = map[string]*CatalogNode{}
	}
	if c.Sources == nil {
		c.Sources = map[string]*CatalogNode{}
	}
	return c, nil
}

func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON document")
	}
	return nil
}

// artifactError names the file and, for JSON errors, the line and column.
func artifactError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	p, _ := textpos.OfJSONError(data, err)
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s: not valid JSON: %w", textpos.Where(name, p), err)
	case errors.As(err, &typ):
		return fmt.Errorf("%s: %s: expected %s, found JSON %s", textpos.Where(name, p), typ.Field, typ.Type, typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: empty or truncated JSON", name)
	}
	return fmt.Errorf("%s: %w", name, err)
}

package owners

import (
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/celine-eu/governanced/internal/schema"
	"github.com/celine-eu/governanced/internal/yaml11"
	"github.com/celine-eu/governanced/schemas"
)

// Options are the loader's choices (owners.md §4.1).
type Options struct {
	// MissingOK makes a missing file an empty registry instead of a NotFound
	// error. (The two historical loaders disagreed; the caller chooses.)
	MissingOK bool
	// Validate checks the document against the owners schema before parsing;
	// any violation fails the load with every error listed (a *schema.Error).
	Validate bool
}

// File is one parsed registry file: its entries in file order, duplicates
// included, and what reading it warned about.
type File struct {
	Path     string
	Entries  []*Entry
	Warnings []Warning // duplicate YAML keys
}

// Load reads and builds one registry file (owners.md §4.1). Errors: an
// *Error of kind NotFound (missing file), Malformed (a non-mapping root) or
// Invalid (a value that does not fit its field); a *yaml11.Error wrapped with
// the path; a *schema.Error when Validate is set and the schema fails.
func Load(path string, opts Options) (*Registry, error) {
	f, err := ReadFile(path, opts)
	if err != nil {
		return nil, err
	}
	return f.Build(), nil
}

// LoadFS is Load reading from fsys.
func LoadFS(fsys fs.FS, name string, opts Options) (*Registry, error) {
	data, err := fs.ReadFile(fsys, name)
	f, err := fileFrom(data, err, name, opts)
	if err != nil {
		return nil, err
	}
	return f.Build(), nil
}

// ReadFile reads and parses one registry file without building it.
func ReadFile(path string, opts Options) (*File, error) {
	data, err := os.ReadFile(path)
	return fileFrom(data, err, path, opts)
}

func fileFrom(data []byte, readErr error, path string, opts Options) (*File, error) {
	if readErr != nil {
		if isNotExist(readErr) {
			if opts.MissingOK {
				return &File{Path: path}, nil
			}
			return nil, notFound(path, readErr)
		}
		return nil, fmt.Errorf("reading owners registry: %w", readErr)
	}
	return Parse(data, path, opts)
}

// Parse reads a registry document; source names it in errors and warnings.
// MissingOK does not apply.
func Parse(data []byte, source string, opts Options) (*File, error) {
	root, yw, err := yaml11.ParseWithWarnings(data, yaml11.Limits{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	doc := schema.Document(root)
	if opts.Validate {
		vs, err := schema.Violations(doc, schemas.Owners, source)
		if err != nil {
			return nil, err
		}
		if len(vs) > 0 {
			return nil, &schema.Error{Source: source, Violations: vs}
		}
	}
	return ParseDocument(doc, yw, source)
}

// ParseDocument is Parse for a document read already: doc as
// schema.Document gives it, dups the duplicate keys its reading warned of
// (yaml11.Document.Warnings). It does not validate. A caller that reads
// the document for its own checks passes it here rather than have the
// bytes read twice.
func ParseDocument(doc *yaml11.Node, dups []yaml11.Warning, source string) (*File, error) {
	entries, err := parseDocument(doc, source)
	if err != nil {
		return nil, err
	}
	f := &File{Path: source, Entries: entries}
	for _, w := range dups {
		f.Warnings = append(f.Warnings, Warning{Code: WarnDuplicateKey, File: source, Pos: w.Pos, Msg: w.Msg})
	}
	return f, nil
}

// Build builds the file's registry as the reference does (owners.md §4.2),
// duplicate ids and all.
func (f *File) Build() *Registry {
	r := Build(f.Entries)
	r.warnings = append(slices.Clone(f.Warnings), r.warnings...)
	return r
}

// LoadAll reads the registry files a deployment names and materialises them
// (owners.md §7): each is validated strictly on its own first — the first that
// fails stops the load — then Materialise combines them. A missing file is an
// error.
func LoadAll(paths ...string) (*Registry, error) {
	files := make([]*File, 0, len(paths))
	for _, p := range paths {
		f, err := ReadFile(p, Options{Validate: true})
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return Materialise(files...), nil
}

// Materialise combines registry files (owners.md §7): walking files in order,
// then entries in order, an entry whose id was already seen — earlier in the
// same file or in an earlier file — replaces the earlier entry whole, keeping
// the position of the id's first appearance. A replacement within one file is
// warned as a duplicate id; one by a later file is reported as WarnOverridden.
// The registry is then built from the resulting list, whose ids are unique, so
// a replaced entry's aliases and URIs are gone with it.
func Materialise(files ...*File) *Registry {
	var (
		list     []*Entry
		at       = map[string]int{}
		from     = map[string]int{} // id → index of the file whose entry holds it
		warnings []Warning
		named    = map[string]bool{} // paths of the files so far
	)
	for fi, f := range files {
		// The same file named twice (--owners a.yaml --owners a.yaml) is
		// merged again in its place, but says nothing twice: its own warnings
		// and duplicates were reported the first time, and an entry replacing
		// its own earlier copy is no override.
		repeat := named[f.Path]
		named[f.Path] = true
		if !repeat {
			warnings = append(warnings, f.Warnings...)
		}
		for _, e := range f.Entries {
			i, seen := at[e.ID]
			if !seen {
				at[e.ID] = len(list)
				list = append(list, e)
				from[e.ID] = fi
				continue
			}
			switch {
			case from[e.ID] == fi:
				if !repeat {
					warnings = append(warnings, Warning{Code: WarnDuplicateID, File: e.File, Pos: e.Pos,
						Msg: fmt.Sprintf("Duplicate owner id '%s' — later entry wins", e.ID)})
				}
			case files[from[e.ID]].Path != f.Path:
				warnings = append(warnings, Warning{Code: WarnOverridden, File: e.File, Pos: e.Pos,
					Msg: fmt.Sprintf("Owner '%s' of %s replaced whole by a later registry file", e.ID, files[from[e.ID]].Path)})
			}
			list[i] = e
			from[e.ID] = fi
		}
	}
	r := Build(list)
	r.warnings = append(warnings, r.warnings...)
	return r
}

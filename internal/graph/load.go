package graph

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/celine-eu/governanced/internal/governance"
	"github.com/celine-eu/governanced/internal/keyindex"
	"github.com/celine-eu/governanced/internal/textpos"
	"github.com/celine-eu/governanced/internal/yaml11"
)

// Pipeline is one node: what one governance file (or one served, merged
// configuration) says about its outputs and inputs.
type Pipeline struct {
	// Name identifies the pipeline in edges, findings and renderings. Names
	// must be unique within a graph; Load makes them so (§4.1).
	Name string
	// Path is the file as printed (the json rendering's "path").
	Path string
	// Produces are the keys of sources, in document order, of a pipeline
	// made without a configuration; one made from a configuration
	// (FromConfig) reads them in the configuration's index instead. Key,
	// KeyCount and Keys read either.
	Produces []string
	// Active is the root active, true when absent.
	Active bool
	// Declared tells an undeclared depends_on (the file has not said what
	// it reads) from an empty one (it reads nothing).
	Declared bool
	// DependsOn are the entries of depends_on, in order; none when
	// undeclared.
	DependsOn []governance.Dependency

	// keys is the index of the configuration the pipeline was made from
	// (FromConfig), nil for one made from Produces: its keys' texts and
	// compiled globs, read where the configuration holds them rather than
	// copied (a tree's graph would hold a second list of every key).
	keys *keyindex.Index
}

// KeyCount is the number of sources keys.
func (p *Pipeline) KeyCount() int {
	if p.keys != nil {
		return p.keys.Len()
	}
	return len(p.Produces)
}

// Key is sources key k.
func (p *Pipeline) Key(k int) string {
	if p.keys != nil {
		return p.keys.Text(k)
	}
	return p.Produces[k]
}

// Keys are the sources keys, in document order: Produces, or a list read
// from the configuration's index, made for the caller.
func (p *Pipeline) Keys() []string {
	if p.keys == nil {
		return p.Produces
	}
	out := make([]string, p.keys.Len())
	for k := range out {
		out[k] = p.keys.Text(k)
	}
	return out
}

// glob is key k compiled, ok false when it has no metacharacter: the
// configuration's own glob, which matching then does not compile again.
func (p *Pipeline) glob(k int) (g keyindex.Glob, ok bool) {
	if p.keys != nil {
		return p.keys.Glob(k)
	}
	if key := p.Produces[k]; keyindex.HasMeta(key) {
		return *keyindex.Compile(key), true
	}
	return keyindex.Glob{}, false
}

// App is the part of the name after the last "/": the directory name a
// deployment's flows refer to (§4.1), even for a disambiguated name.
func (p *Pipeline) App() string { return appOf(p.Name) }

func appOf(name string) string { return name[strings.LastIndexByte(name, '/')+1:] }

// FromConfig is the node of a parsed governance configuration, such as one a
// server holds with its deployer overlay merged in: its sources' keys, its
// active and its depends_on, as the merge left them.
func FromConfig(name, path string, cfg *governance.Config) Pipeline {
	p := Pipeline{Name: name, Path: path, Active: cfg.Active, Declared: cfg.DependsOnSet, keys: cfg.Keys()}
	if cfg.DependsOnSet {
		p.DependsOn = cfg.DependsOn
	}
	return p
}

// LoadError is a governance file the graph cannot be built from: the command
// stops with it (graph.md §2 step 2).
type LoadError struct {
	File        string // as printed
	textpos.Pos        // zero when unknown
	Msg         string
	Err         error // the underlying error, if any
}

func (e *LoadError) Error() string {
	return textpos.Prefix(e.File, e.Pos) + e.Msg
}

func (e *LoadError) Unwrap() error { return e.Err }

// Missing is a discovered governance.yaml that does not exist when read: a
// dangling symlink (§12.1 C4). The reference warns and reads it as an empty
// document; so does Load.
type Missing struct{ File string }

// Load reads every discovered file into a pipeline, in discovery order, and
// names them (§4, §4.1). It reads only the root keys active, depends_on and
// the keys of sources; a block's contents are never read (§12 N1). The first
// file that cannot be loaded stops it with a *LoadError.
func Load(d *Discovery) ([]Pipeline, []Missing, error) {
	pipelines := make([]Pipeline, len(d.Files))
	var missing []Missing
	f := fsys{dir: d.dir}
	dirs := make([]string, len(d.Files))
	for i, file := range d.Files {
		dirs[i] = file.dir
		p, gone, err := loadFile(f, file)
		if err != nil {
			return nil, nil, err
		}
		if gone {
			missing = append(missing, Missing{File: file.Path})
		}
		pipelines[i] = p
	}
	for i, name := range disambiguate(dirs) {
		pipelines[i].Name = name
	}
	return pipelines, missing, nil
}

// LoadMerged is Load with each file merged with its deployer overlay first,
// as a server holds it: governance.<name>.yaml beside the file, name being
// overlayName or else the directory's name (the pairing of validate and
// serve). It parses the whole of both documents with the governance package,
// so a block the rule model refuses stops it, unlike Load (§12 N1). merged
// holds the overlays it merged, by resolved path (see Discovery.Unmerged).
func LoadMerged(d *Discovery, overlayName string) (pipelines []Pipeline, missing []Missing, merged map[string]bool, err error) {
	f := fsys{dir: d.dir}
	pipelines = make([]Pipeline, len(d.Files))
	merged = map[string]bool{}
	dirs := make([]string, len(d.Files))
	opts := governance.OverlayOptions{Name: overlayName, InferFromDir: true, Getenv: func(string) string { return "" }}
	for i, file := range d.Files {
		dirs[i] = file.dir
		ok, err := f.exists(file.open)
		if err != nil {
			return nil, nil, nil, &LoadError{File: file.Path, Msg: "cannot read: " + unwrapPathError(err), Err: err}
		}
		if !ok {
			missing = append(missing, Missing{File: file.Path})
			pipelines[i] = Pipeline{Path: file.Path, Active: true}
			continue
		}
		overlay := ""
		if name := governance.OverlayName(file.open, opts); name != "" {
			overlay = governance.OverlayPath(file.open, name)
			if !f.isRegular(overlay) {
				overlay = ""
			}
		}
		shown := func(p string) string {
			if p == overlay && overlay != "" {
				return pathJoin(pathParent(file.Path), pathName(overlay))
			}
			return file.Path
		}
		cfg, err := governance.LoadWithOverlay(file.open, opts)
		if err != nil {
			var ge *governance.Error
			if errors.As(err, &ge) {
				le := fromGovernance(shown(ge.File), err).(*LoadError)
				return nil, nil, nil, le
			}
			return nil, nil, nil, &LoadError{File: file.Path, Msg: err.Error(), Err: err}
		}
		if overlay != "" {
			merged[f.realPath(overlay)] = true
		}
		pipelines[i] = FromConfig("", file.Path, cfg)
	}
	for i, name := range disambiguate(dirs) {
		pipelines[i].Name = name
	}
	return pipelines, missing, merged, nil
}

// Unmerged are the skipped overlays not in merged (as LoadMerged returns it).
func (d *Discovery) Unmerged(merged map[string]bool) []string {
	f := fsys{dir: d.dir}
	var out []string
	for _, p := range d.SkippedOverlays {
		if !merged[f.realPath(p)] {
			out = append(out, p)
		}
	}
	return out
}

func loadFile(f fsys, file File) (p Pipeline, gone bool, err error) {
	p = Pipeline{Path: file.Path, Active: true}
	ok, err := f.exists(file.open)
	if err != nil {
		return p, false, &LoadError{File: file.Path, Msg: "cannot read: " + unwrapPathError(err), Err: err}
	}
	if !ok {
		return p, true, nil
	}
	data, err := os.ReadFile(file.open)
	if err != nil {
		return p, false, &LoadError{File: file.Path, Msg: "cannot read: " + unwrapPathError(err), Err: err}
	}
	if err := parseInto(&p, data, file.Path); err != nil {
		return p, false, err
	}
	return p, false, nil
}

func unwrapPathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Parse reads one governance document's graph view: the pipeline it
// describes, with Path set to file (which names it in errors) and no name.
func Parse(data []byte, file string) (Pipeline, error) {
	p := Pipeline{Path: file, Active: true}
	err := parseInto(&p, data, file)
	return p, err
}

// parseInto applies the reference's reading of a document (§4 with §12.1
// C6–C9): a falsy root is an empty document, any other root must be a
// mapping; sources falsy means no outputs, else a mapping whose keys are
// strings; active a YAML boolean; depends_on falsy means declared and empty,
// else a list of entries as governance.ParseDependency reads them.
func parseInto(p *Pipeline, data []byte, file string) error {
	if !utf8.Valid(data) {
		return &LoadError{File: file, Msg: fmt.Sprintf("not UTF-8 text (invalid byte at offset %d)", invalidUTF8At(data))}
	}
	doc, err := yaml11.Parse(data)
	if err != nil {
		var ye *yaml11.Error
		if errors.As(err, &ye) {
			return &LoadError{File: file, Pos: textpos.Pos{Line: ye.Line, Column: ye.Column}, Msg: "YAML error: " + ye.Msg, Err: err}
		}
		return &LoadError{File: file, Msg: "YAML error: " + err.Error(), Err: err}
	}
	if doc.Falsy() {
		return nil
	}
	if doc.Kind != yaml11.Map {
		return errAt(file, doc, "", "the document root must be a mapping, not %s", yaml11.Describe(doc))
	}
	if v := doc.Get("sources"); v != nil && !v.Falsy() {
		if v.Kind != yaml11.Map {
			return errAt(file, v, "sources", "expected a mapping of dataset keys, got %s", yaml11.Describe(v))
		}
		p.Produces = make([]string, 0, len(v.Pairs))
		for _, pair := range v.Pairs {
			if pair.Key.Kind != yaml11.String {
				return errAt(file, pair.Key, "sources", "a dataset key must be a string, got %s", yaml11.Describe(pair.Key))
			}
			p.Produces = append(p.Produces, pair.Key.Str)
		}
	}
	if v := doc.Get("active"); v != nil {
		if v.Kind != yaml11.Bool {
			return errAt(file, v, "active", "expected a boolean (true or false), got %s", yaml11.Describe(v))
		}
		p.Active = v.Bool
	}
	if v := doc.Get("depends_on"); v != nil {
		p.Declared = true
		p.DependsOn = []governance.Dependency{}
		if !v.Falsy() {
			if v.Kind != yaml11.Seq {
				return errAt(file, v, "depends_on", "expected a list of dependency entries, got %s", yaml11.Describe(v))
			}
			p.DependsOn = make([]governance.Dependency, 0, len(v.Items))
			for i, it := range v.Items {
				d, err := governance.ParseDependency(it, fmt.Sprintf("depends_on/%d", i))
				if err != nil {
					return fromGovernance(file, err)
				}
				p.DependsOn = append(p.DependsOn, d)
			}
		}
	}
	return nil
}

func errAt(file string, n *yaml11.Node, path, format string, args ...any) *LoadError {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	return &LoadError{File: file, Pos: n.Pos, Msg: msg}
}

func fromGovernance(file string, err error) error {
	var ge *governance.Error
	if errors.As(err, &ge) {
		msg := ge.Msg
		if ge.Path != "" {
			msg = ge.Path + ": " + msg
		}
		return &LoadError{File: file, Pos: ge.Pos, Msg: msg, Err: err}
	}
	return &LoadError{File: file, Msg: err.Error(), Err: err}
}

func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// disambiguate names pipelines after their directories (resolved, absolute):
// while names collide, each colliding one becomes the last N segments of its
// directory joined with "/", for N = 2, 3, … up to the longest directory's
// segment count, the root counting as one segment (§4.1).
func disambiguate(dirs []string) []string {
	segs := make([][]string, len(dirs))
	names := make([]string, len(dirs))
	maxDepth := 1
	for i, d := range dirs {
		segs[i] = realSegments(d)
		names[i] = pathName(d)
		maxDepth = max(maxDepth, len(segs[i]))
	}
	for depth := 2; depth <= maxDepth; depth++ {
		counts := make(map[string]int, len(names))
		for _, n := range names {
			counts[n]++
		}
		if len(counts) == len(names) {
			break
		}
		next := make([]string, len(names))
		for i, n := range names {
			next[i] = n
			if counts[n] > 1 {
				s := segs[i]
				next[i] = strings.Join(s[max(0, len(s)-depth):], "/")
			}
		}
		names = next
	}
	return names
}

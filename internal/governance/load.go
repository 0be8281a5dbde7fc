package governance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LoadFile reads a governance file (the reference's from_file). A missing file
// is an error naming the path: handing over a path says which file is meant,
// so its absence is not "nothing was asked for".
func LoadFile(path string) (*Config, error) {
	return loadFile(path, false)
}

func loadFile(path string, overlay bool) (*Config, error) {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Class: ClassNotFound, File: path, Msg: "governance file not found", Err: err}
		}
		return nil, &Error{Class: ClassNotFound, File: path, Msg: err.Error(), Err: err}
	}
	if !info.Mode().IsRegular() {
		return nil, &Error{Class: ClassNotFound, File: path, Msg: "not a regular file"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Class: ClassNotFound, File: path, Msg: err.Error(), Err: err}
	}
	return parseFile(data, path, overlay)
}

// OverlayOptions choose a deployer overlay for a base file.
type OverlayOptions struct {
	// Name is the overlay name; "" falls through to Getenv("GOVERNANCE_OVERLAY_NAME").
	Name string
	// InferFromDir takes the base file's directory name when no name is given.
	InferFromDir bool
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// OverlayName picks the overlay name for a base path, or "" for none
// (governance-format.md §9.2).
func OverlayName(basePath string, opts OverlayOptions) string {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	name := opts.Name
	if name == "" {
		name = getenv("GOVERNANCE_OVERLAY_NAME")
	}
	if name == "" && opts.InferFromDir {
		dir := filepath.Dir(basePath)
		if dir != "." && dir != string(filepath.Separator) && dir != ".." && strings.ContainsAny(basePath, `/\`) {
			name = filepath.Base(dir)
			if name == "." || name == ".." || name == string(filepath.Separator) {
				name = ""
			}
		}
	}
	if name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return "" // an overlay never lives outside the base's directory
	}
	return name
}

// OverlayPath is the overlay file for a base and a name: governance.<name>.yaml
// beside the base.
func OverlayPath(basePath, name string) string {
	return filepath.Join(filepath.Dir(basePath), "governance."+name+".yaml")
}

// LoadWithOverlay loads a base file and merges the deployer overlay beside it,
// when one is named and exists (the reference's from_file_with_override). A
// missing base is an error; a missing overlay is not.
func LoadWithOverlay(basePath string, opts OverlayOptions) (*Config, error) {
	base, err := LoadFile(basePath)
	if err != nil {
		return nil, err
	}
	name := OverlayName(basePath, opts)
	if name == "" {
		return base, nil
	}
	path := OverlayPath(basePath, name)
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return base, nil
	}
	overlay, err := loadFile(path, true)
	if err != nil {
		return nil, err
	}
	return MergeConfigs(base, overlay), nil
}

// Empty is the configuration of a document that says nothing: every dataset
// resolves to the empty rule.
func Empty() *Config {
	return &Config{Active: true, Defaults: &Rule{}, index: buildIndex(nil)}
}

// Discovery is the result of AutoDiscover: the configuration and the file it
// came from ("" when nothing was found), with notes a caller may log.
type Discovery struct {
	Config *Config
	Path   string
	Notes  []string
}

// AutoDiscover finds a governance file by convention (governance-format.md
// §9.3): $GOVERNANCE_CONFIG_PATH, then <PIPELINES_ROOT>/apps/<app>/governance.yaml,
// then governance.yaml beside the project directory. Nothing found is the empty
// configuration, not an error: nothing was asked for.
func AutoDiscover(appName, projectDir string, getenv func(string) string) (Discovery, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var notes []string
	try := func(path string) (bool, Discovery, error) {
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() {
			return false, Discovery{}, nil
		}
		cfg, err := LoadFile(path)
		return true, Discovery{Config: cfg, Path: path, Notes: notes}, err
	}
	if p := getenv("GOVERNANCE_CONFIG_PATH"); p != "" {
		if ok, d, err := try(p); ok {
			return d, err
		}
		notes = append(notes, fmt.Sprintf("GOVERNANCE_CONFIG_PATH=%s is not a regular file; continuing discovery", p))
	}
	if appName != "" {
		root := getenv("PIPELINES_ROOT")
		if root == "" {
			root = "."
		}
		if ok, d, err := try(filepath.Join(root, "apps", appName, "governance.yaml")); ok {
			return d, err
		}
	}
	if projectDir != "" {
		trimmed := strings.TrimRight(projectDir, `/\`)
		if trimmed == "" {
			trimmed = projectDir
		}
		if ok, d, err := try(filepath.Join(filepath.Dir(trimmed), "governance.yaml")); ok {
			return d, err
		}
	}
	notes = append(notes, "no governance file found; every dataset resolves to the empty rule")
	return Discovery{Config: Empty(), Notes: notes}, nil
}

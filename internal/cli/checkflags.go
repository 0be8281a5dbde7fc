package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/celine-eu/governanced/internal/check"
)

// The tree check's options are declared here once, for every command that
// checks a tree — validate, serve, diff, resolve — so that the gate and the
// server cannot disagree about what a tree means: the same flags, the same
// GOVERNANCED_* variables (BindEnv), and the library's own variables read
// here and nowhere else, with one meaning for every command:
//
//   - GOVERNANCE_OVERLAY_NAME is the overlay name when neither
//     --overlay-name nor GOVERNANCED_OVERLAY_NAME gives one, as the
//     library's from_file_with_override takes it;
//   - GOVERNANCE_CONFIG_PATH and PIPELINES_ROOT steer --discover, as they
//     steer the library's auto_discover.
//
// POST /validate takes the same options from its query (api/validate.go).

// Library environment variables (seed 001; governance-format.md §9.2, §9.3).
const (
	EnvOverlayName = "GOVERNANCE_OVERLAY_NAME"
	EnvConfigPath  = "GOVERNANCE_CONFIG_PATH"
	EnvPipelines   = "PIPELINES_ROOT"
)

// CheckFlags are the check's options of one command line, as given.
type CheckFlags struct {
	overlayDir, overlayName, placeholders optString
	owners                                []string
	dataspace, strict, inferFromDir       bool

	discovery                       bool // declared: the command serves what discovery finds
	discover                        bool
	discoverApp, discoverProjectDir optString
}

// Declare declares the check's options on fs; discovery adds --discover
// and its arguments (serve and resolve, which serve what they find).
func (c *CheckFlags) Declare(fs *pflag.FlagSet, discovery bool) {
	c.overlayDir.once, c.overlayName.once, c.placeholders.once = true, true, true
	fs.Var(&c.overlayDir, "overlay-dir", "a directory of deployer overlays, paired with bases by app name (at most once)")
	fs.Var(&c.overlayName, "overlay-name", "the overlay name to look for beside each base instead of the app name (at most once; default $"+EnvOverlayName+")")
	fs.StringArrayVar(&c.owners, "owners", nil, "an owners registry; repeatable, later files shadow earlier ones by id")
	fs.Var(&c.placeholders, "placeholders", "the deployment's placeholder map (name -> owner id); needs --owners")
	fs.BoolVar(&c.dataspace, "dataspace", false, "require a DID for owners of organization-narrowed dataspace offers; needs --owners")
	fs.BoolVar(&c.strict, "strict", false, "warnings fail the check")
	fs.BoolVar(&c.inferFromDir, "infer-from-dir", true, "with no overlay name, pair the overlay named after the app's directory (governance.<app>.yaml); false leaves each base unchanged, as the library's infer_from_dir=False")
	if !discovery {
		return
	}
	c.discovery = true
	c.discoverApp.once, c.discoverProjectDir.once = true, true
	fs.BoolVar(&c.discover, "discover", false, "find the one governance file to serve as the library's auto_discover does: $"+EnvConfigPath+", then $"+EnvPipelines+"/apps/<app>/governance.yaml, then governance.yaml beside the project directory; served alone, no overlay")
	fs.Var(&c.discoverApp, "discover-app", "the app auto-discovery looks for under $"+EnvPipelines+"/apps (implies --discover)")
	fs.Var(&c.discoverProjectDir, "discover-project-dir", "a dbt or Meltano project directory whose parent holds governance.yaml (implies --discover)")
}

// CheckConfig is a command line's check options, read: what to ask the
// check, every path as given (relative ones against the command's working
// directory). A nil pointer is an option not given.
type CheckConfig struct {
	OverlayDir     *string
	OverlayName    *string
	Owners         []string
	Placeholders   *string
	Dataspace      bool
	Strict         bool
	NoInferFromDir bool
	// Discovered is the file --discover found; nil without --discover.
	Discovered *Discovered
	// Notes say what the environment decided, for the command to tell its
	// user (a gate whose verdict an environment variable changed says so).
	Notes []string
}

// Discovered is the outcome of auto-discovery.
type Discovered struct {
	App  string // --discover-app, "" for none
	Path string // the file found, as discovery composed it; "" when nothing was found
}

// Config reads the options given (after BindEnv) and the library's
// environment variables.
func (c *CheckFlags) Config(env *Env) (CheckConfig, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg := CheckConfig{
		OverlayDir: c.overlayDir.ptr(), OverlayName: c.overlayName.ptr(), Placeholders: c.placeholders.ptr(),
		Owners: c.owners, Dataspace: c.dataspace, Strict: c.strict, NoInferFromDir: !c.inferFromDir,
	}
	if cfg.OverlayName == nil {
		// The library's variable: an empty one is not given.
		if v := getenv(EnvOverlayName); v != "" {
			cfg.OverlayName = &v
			cfg.Notes = append(cfg.Notes, fmt.Sprintf("overlay name %q from %s", v, EnvOverlayName))
		}
	}
	if cfg.OverlayName != nil && !check.ValidOverlayName(*cfg.OverlayName) {
		return cfg, Usagef("invalid overlay name %q: it must be non-empty, not . or .., and contain no / or \\", *cfg.OverlayName)
	}
	if len(cfg.Owners) == 0 {
		switch {
		case cfg.Dataspace:
			return cfg, Usagef("--dataspace needs at least one --owners file")
		case cfg.Placeholders != nil:
			return cfg, Usagef("--placeholders needs at least one --owners file")
		}
	}
	if !c.discovery || !(c.discover || c.discoverApp.set || c.discoverProjectDir.set) {
		return cfg, nil
	}
	// auto_discover loads the file it finds alone: an overlay option
	// would say the user expects what discovery never does.
	switch {
	case c.overlayDir.set:
		return cfg, Usagef("--discover serves the file it finds alone, as the library's auto_discover loads it: --overlay-dir does not apply")
	case c.overlayName.set:
		return cfg, Usagef("--discover serves the file it finds alone, as the library's auto_discover loads it: --overlay-name does not apply")
	}
	cfg.OverlayName = nil
	cfg.Notes = nil
	d := &Discovered{App: c.discoverApp.value}
	var notes []string
	d.Path, notes = Discover(c.discoverApp.value, c.discoverProjectDir.value, getenv, env.Dir)
	cfg.Notes = append(cfg.Notes, notes...)
	cfg.Discovered = d
	return cfg, nil
}

// Discover finds a governance file in the order of the library's
// auto_discover (governance-format.md §9.3): $GOVERNANCE_CONFIG_PATH when
// it names a regular file, then <PIPELINES_ROOT>/apps/<app>/governance.yaml
// (PIPELINES_ROOT unset or empty is the working directory), then
// governance.yaml in the lexical parent of projectDir. Relative paths are
// taken from dir ("" is the process's working directory). path is the
// first regular file, as composed ("" when there is none); notes say what
// was passed over, as the library logs it.
func Discover(app, projectDir string, getenv func(string) string, dir string) (path string, notes []string) {
	isFile := func(p string) bool {
		if dir != "" && !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		info, err := os.Stat(p)
		return err == nil && info.Mode().IsRegular()
	}
	if p := getenv(EnvConfigPath); p != "" {
		if isFile(p) {
			return p, nil
		}
		notes = append(notes, fmt.Sprintf("%s=%s does not exist or is not a file; discovery goes on", EnvConfigPath, p))
	}
	if app != "" {
		root := getenv(EnvPipelines)
		if root == "" {
			root = "."
		}
		if p := filepath.Join(root, "apps", app, "governance.yaml"); isFile(p) {
			return p, notes
		}
	}
	if projectDir != "" {
		trimmed := strings.TrimRight(projectDir, `/\`)
		if trimmed == "" {
			trimmed = projectDir // the root directory: its parent is itself
		}
		if p := filepath.Join(filepath.Dir(trimmed), "governance.yaml"); isFile(p) {
			return p, notes
		}
	}
	return "", append(notes, "no governance file found")
}

// Options are the check's options for validate's PATHs, read from dir.
func (c CheckConfig) Options(paths []string, dir string) check.Options {
	return check.Options{
		Paths: paths, OverlayDir: c.OverlayDir, OverlayName: c.OverlayName, Owners: c.Owners,
		PlaceholdersFile: c.Placeholders, Dataspace: c.Dataspace, Strict: c.Strict,
		NoInferFromDir: c.NoInferFromDir, Dir: dir,
	}
}

// optString is a string flag that records whether it was given (on the
// command line or through BindEnv), and that may be given at most once
// (check.md §2.1: a second --overlay-dir is a usage error, not a silent
// override).
type optString struct {
	value string
	set   bool
	once  bool
}

func (o *optString) String() string { return o.value }

func (o *optString) Set(v string) error {
	if o.once && o.set {
		return fmt.Errorf("may be given only once")
	}
	o.set, o.value = true, v
	return nil
}

func (o *optString) Type() string { return "string" }

func (o *optString) ptr() *string {
	if !o.set {
		return nil
	}
	v := o.value
	return &v
}

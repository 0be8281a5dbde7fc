package main

import (
	"errors"

	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// errNothingDiscovered is --discover finding no governance file.
var errNothingDiscovered = errors.New("auto-discovery found no governance file")

// checkInputs are what serve and resolve serve: the trees and the check's
// options of the command line (cli.CheckFlags, the options validate takes,
// read the same way), or the one file --discover found. An option given
// empty names the working directory, as validate reads it. Nothing found
// is errNothingDiscovered.
func checkInputs(trees []string, cfg cli.CheckConfig, dir string) (snapshot.Inputs, error) {
	in := snapshot.Inputs{
		Trees: trees, Owners: cfg.Owners, Dataspace: cfg.Dataspace, Strict: cfg.Strict,
		NoInferFromDir: cfg.NoInferFromDir, Dir: dir,
	}
	given := func(p *string) string {
		switch {
		case p == nil:
			return ""
		case *p == "":
			return "."
		}
		return *p
	}
	in.OverlayDir, in.Placeholders = given(cfg.OverlayDir), given(cfg.Placeholders)
	if cfg.OverlayName != nil {
		in.OverlayName = *cfg.OverlayName
	}
	if d := cfg.Discovered; d != nil {
		if len(trees) > 0 {
			return in, cli.Usagef("--discover finds the one file to serve: --tree does not apply")
		}
		if d.Path == "" {
			return in, errNothingDiscovered
		}
		in.Base, in.TreeName = d.Path, d.App
	}
	return in, nil
}

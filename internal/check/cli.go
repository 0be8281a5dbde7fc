package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Synopsis is the validate command line (check.md §2.1).
const Synopsis = `usage: validate PATH... [--overlay-dir DIR] [--overlay-name NAME] [--owners FILE]...
                [--placeholders FILE] [--dataspace] [--strict] [--format text|json|sarif|github]

Check governance trees as they will be served: every base merged with its
overlay, owners resolved. The report goes to standard output.

  PATH                  a governance file, a directory holding governance.yaml, or a glob
  --overlay-dir DIR     a directory of deployer overlays, paired with bases by app name
  --overlay-name NAME   the overlay name to look for beside each base instead of the app name
  --owners FILE         an owners registry; repeatable, later files shadow earlier ones by id
  --placeholders FILE   the deployment's placeholder map (name -> owner id); needs --owners
  --dataspace           require a DID for owners of organization-narrowed dataspace offers; needs --owners
  --strict              warnings fail the run
  --format FORMAT       text (default), json, sarif or github

Exit status: 0 when the check passes, 1 when it fails, 2 on a usage error.
`

// Invocation is a parsed validate command line.
type Invocation struct {
	Options Options
	Format  string
	Help    bool
}

type cliOption struct {
	name  string
	value bool
}

var cliOptions = []cliOption{
	{"--overlay-dir", true}, {"--overlay-name", true}, {"--owners", true}, {"--placeholders", true},
	{"--dataspace", false}, {"--strict", false}, {"--format", true}, {"--help", false},
}

// lookupOption finds a long option by its name or, as argparse allows, an
// unambiguous prefix of it, so that existing CI lines keep working.
func lookupOption(name string) (cliOption, error) {
	var found []cliOption
	for _, o := range cliOptions {
		if o.name == name {
			return o, nil
		}
		if strings.HasPrefix(o.name, name) && len(name) > 2 {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 0:
		return cliOption{}, usagef("unrecognized option %s", name)
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, o := range found {
		names[i] = o.name
	}
	return cliOption{}, usagef("ambiguous option %s could match %s", name, strings.Join(names, ", "))
}

// ParseArgs reads the arguments that follow "validate". Errors are
// *UsageError. Checks that depend on several options together (an owners file
// for --dataspace, at least one PATH) are NewPlan's.
func ParseArgs(args []string) (Invocation, error) {
	inv := Invocation{Format: "text"}
	seen := map[string]bool{}
	once := func(name string) error {
		if seen[name] {
			return usagef("%s may be given only once", name)
		}
		seen[name] = true
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			inv.Options.Paths = append(inv.Options.Paths, args[i+1:]...)
			break
		}
		if a == "-h" {
			inv.Help = true
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			inv.Options.Paths = append(inv.Options.Paths, a)
			continue
		}
		if !strings.HasPrefix(a, "--") {
			return inv, usagef("unrecognized option %s", a)
		}
		name, value, hasValue := strings.Cut(a, "=")
		o, err := lookupOption(name)
		if err != nil {
			return inv, err
		}
		if !o.value {
			if hasValue {
				return inv, usagef("option %s takes no value", o.name)
			}
		} else if !hasValue {
			if i+1 >= len(args) || (strings.HasPrefix(args[i+1], "-") && args[i+1] != "-") {
				return inv, usagef("option %s needs a value", o.name)
			}
			i++
			value = args[i]
		}
		switch o.name {
		case "--help":
			inv.Help = true
		case "--dataspace":
			inv.Options.Dataspace = true
		case "--strict":
			inv.Options.Strict = true
		case "--owners":
			inv.Options.Owners = append(inv.Options.Owners, value)
		case "--format":
			if !slices.Contains(Formats, value) {
				return inv, usagef("--format must be one of %s, not %q", strings.Join(Formats, ", "), value)
			}
			inv.Format = value
		case "--overlay-dir":
			if err := once(o.name); err != nil {
				return inv, err
			}
			inv.Options.OverlayDir = &value
		case "--overlay-name":
			if err := once(o.name); err != nil {
				return inv, err
			}
			if !ValidOverlayName(value) {
				return inv, usagef("invalid --overlay-name %q: it must be non-empty, not . or .., and contain no / or \\", value)
			}
			inv.Options.OverlayName = &value
		case "--placeholders":
			if err := once(o.name); err != nil {
				return inv, err
			}
			inv.Options.PlaceholdersFile = &value
		}
	}
	return inv, nil
}

// RunCLI runs `validate` with the arguments that follow it, in the process's
// working directory, and returns the exit status: 0 pass, 1 fail, 2 usage.
// The report goes to stdout and nothing else does; usage errors go to stderr.
func RunCLI(args []string, stdout, stderr io.Writer) int {
	return runCLI(args, "", stdout, stderr)
}

func runCLI(args []string, dir string, stdout, stderr io.Writer) int {
	inv, err := ParseArgs(args)
	if err == nil && inv.Help {
		fmt.Fprint(stdout, Synopsis)
		return 0
	}
	var rep *Report
	if err == nil {
		inv.Options.Dir = dir
		rep, err = Run(context.Background(), inv.Options)
	}
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "validate: %s\n%s", ue.Msg, strings.SplitAfter(Synopsis, "\n\n")[0])
			return 2
		}
		fmt.Fprintf(stderr, "validate: %v\n", err)
		return 2
	}
	if err := rep.Write(stdout, inv.Format); err != nil {
		// A report that could not be written did not pass anything.
		fmt.Fprintf(stderr, "validate: writing the report: %v\n", err)
		return 1
	}
	return rep.ExitCode
}

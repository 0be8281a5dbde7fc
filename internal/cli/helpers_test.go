package cli

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// parseValidate reads a validate command line without running it (tests).
func parseValidate(args []string, env *Env) (invocation, error) {
	v := &validateFlags{}
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	v.declare(fs)
	if err := fs.Parse(args); err != nil {
		return invocation{}, &UsageError{Msg: err.Error()}
	}
	if fs.NArg() == 0 {
		return invocation{}, Usagef("at least one PATH is required")
	}
	return v.invocation(fs, fs.Args(), env)
}

// runValidate runs `governanced validate ARGS` in dir and returns what it
// wrote and its exit status.
func runValidate(t testing.TB, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	env := &Env{Dir: dir}
	root := &cobra.Command{Use: "governanced"}
	root.AddCommand(NewValidateCmd(env))
	var out, errOut bytes.Buffer
	code = Execute(context.Background(), root, append([]string{"validate"}, args...), &out, &errOut)
	return out.String(), errOut.String(), code
}

// casesDir is the repository's testdata/check-cases, the worked cases of
// check.md §12.
func casesDir(t testing.TB) string {
	t.Helper()
	return testcorpus.Path(t, "check-cases")
}

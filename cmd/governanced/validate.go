package main

import (
	"context"
	"io"

	"github.com/celine-eu/governanced/internal/check"
)

// runValidate is the CI gate (check.md). It shares its command line with the
// celine-governance entry point through check.RunCLI, so the two can never
// disagree. The environment is deliberately not read: a gate whose verdict
// depends on GOVERNANCE_OVERLAY_NAME is not reproducible (check.md D4).
func runValidate(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	if code := check.RunCLI(args, stdout, stderr); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

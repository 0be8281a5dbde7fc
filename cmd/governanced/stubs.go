package main

import (
	"context"
	"errors"
	"io"
)

// These subcommands are filled in by their own files as they land.

func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("serve: not built yet")
}

func runValidate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("validate: not built yet")
}

func runResolve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("resolve: not built yet")
}

func runPolicy(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("policy: not built yet")
}

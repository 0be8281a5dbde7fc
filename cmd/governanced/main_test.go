package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunDispatch(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
	}{
		{[]string{"version"}, 0, "governanced dev"},
		{[]string{"--version"}, 0, "governanced dev"},
		{[]string{"help"}, 0, "Usage:\n  governanced [flags]\n  governanced [command]"},
		{[]string{"--help"}, 0, "Available Commands:"},
		{[]string{"validate", "--help"}, 0, "governanced validate PATH... [flags]"},
		{[]string{"serve", "--help"}, 0, "--max-body-bytes size"},
		{[]string{"completion", "bash"}, 0, "bash completion"},
		{[]string{"frobnicate"}, 2, ""},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := runE(context.Background(), tt.args, func(string) string { return "" }, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != tt.wantCode {
			t.Errorf("%q: exit %d, want %d (%v)", tt.args, code, tt.wantCode, err)
		}
		if !strings.Contains(stdout.String(), tt.wantStdout) {
			t.Errorf("%q: stdout %q, want it to contain %q", tt.args, stdout.String(), tt.wantStdout)
		}
	}
}

// TestVersionIsStamped builds the binary the way the Makefile and the
// Dockerfile do and asks it for its version.
func TestVersionIsStamped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "governanced")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version=v1.2.3-test", "-o", bin, ".")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "governanced v1.2.3-test" {
		t.Errorf("--version printed %q", got)
	}
}

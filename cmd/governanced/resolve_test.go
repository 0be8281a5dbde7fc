package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/cli"
)

func TestResolveCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("apps/a/governance.yaml", "defaults: {access_level: internal, row_filters: []}\nsources:\n  ds.gold.*: {expose: true}\n  ds.shared: {expose: true}\n")
	write("apps/a/governance.prod.yaml", "sources:\n  ds.gold.*: {access_level: restricted}\n")
	write("apps/b/governance.yaml", "defaults: {row_filters: []}\nsources:\n  ds.shared: {expose: false}\n")
	tests := []struct {
		name string
		args []string
		code int // 0 success
		want map[string]any
	}{
		{name: "glob", args: []string{"--tree", dir, "ds.gold.x"}, want: map[string]any{"app": "a", "match": map[string]any{"kind": "glob", "pattern": "ds.gold.*"}}},
		{name: "flags after the name, overlay", args: []string{"ds.gold.x", "--tree", dir, "--overlay-name", "prod"},
			want: map[string]any{"rule": map[string]any{"access_level": "restricted", "expose": true, "row_filters": []any{}}}},
		{name: "per app", args: []string{"--tree", dir, "--app", "b", "ds.shared"}, want: map[string]any{"app": "b"}},
		{name: "ambiguous", args: []string{"--tree", dir, "ds.shared"}, code: 1},
		{name: "not found", args: []string{"--tree", dir, "nothing"}, code: 1},
		{name: "no dataset", args: []string{"--tree", dir}, code: 2},
		{name: "two datasets", args: []string{"--tree", dir, "a", "b"}, code: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := runE(context.Background(), append([]string{"resolve"}, tt.args...), mapEnv(nil), &stdout, &stderr)
			if got := exitCode(err, &stderr); got != tt.code {
				t.Fatalf("exit %d, want %d (%v)\n%s", got, tt.code, err, stderr.String())
			}
			if tt.code != 0 {
				if stdout.Len() != 0 {
					t.Errorf("stdout on failure: %s", stdout.String())
				}
				return
			}
			var body map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(body["revision"].(string), "sha256:") {
				t.Errorf("revision %v", body["revision"])
			}
			for k, v := range tt.want {
				got, _ := json.Marshal(body[k])
				want, _ := json.Marshal(v)
				if !bytes.Equal(got, want) {
					t.Errorf("%s = %s, want %s", k, got, want)
				}
			}
		})
	}
}

func TestResolveRefusesAFailingTree(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "apps", "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "apps", "a", "governance.yaml"), []byte("sources: ["), 0o644)
	var stdout, stderr bytes.Buffer
	err := runE(context.Background(), []string{"resolve", "--tree", dir, "x"}, mapEnv(nil), &stdout, &stderr)
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(stderr.String(), "load-error") {
		t.Fatalf("err %v, stderr %s", err, stderr.String())
	}
}

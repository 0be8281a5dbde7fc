package arch

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/celine-eu/governanced"

// domainPackages must stay importable by any consumer without dragging in HTTP,
// logging, metrics or file watching (ADR-0001, the thin-core contract): adding
// one import line is easy and nothing in a diff makes it look expensive, so a
// test holds the line instead of review.
var domainPackages = []string{
	"internal/yaml11",
	"internal/jsonstring",
	"internal/governance",
	"internal/owners",
	"internal/schema",
	"internal/check",
	"internal/diff",
	"internal/policy",
	"internal/dbt",
	"internal/graph",
	"internal/lineage",
	"internal/propagate",
	"internal/sqlparse",
	"internal/keyindex",
	"internal/sarif",
	"internal/jsonvalue",
	"internal/textpos",
	"internal/pyglob",
	"internal/strindex",
	"internal/memfs",
	"internal/state",
	"internal/gitref",
	"schemas",
}

// allowedThirdParty are the only non-standard module paths a domain package may
// reach, directly or transitively.
var allowedThirdParty = []string{
	"go.yaml.in/yaml/v3",
	"github.com/santhosh-tekuri/jsonschema/v6",
	"golang.org/x/text", // used by the JSON Schema validator
}

// forbiddenInternal are the project's edge packages; a domain package importing
// one would turn the dependency the wrong way round.
var forbiddenInternal = []string{"api", "cmd", "internal/snapshot", "internal/watch", "internal/demo"}

func TestThinCore(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to list dependencies")
	}
	for _, pkg := range domainPackages {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", module+"/"+pkg).CombinedOutput()
			if err != nil {
				// A package renamed or removed must leave this list too.
				t.Fatalf("go list %s: %v\n%s", pkg, err, out)
			}
			for _, dep := range strings.Fields(string(out)) {
				if !allowed(dep) {
					t.Errorf("%s depends on %s: domain packages may import only the standard library, %s and the project's own domain packages", pkg, dep, strings.Join(allowedThirdParty, ", "))
				}
			}
		})
	}
}

func allowed(dep string) bool {
	if rest, ok := strings.CutPrefix(dep, module+"/"); ok {
		for _, f := range forbiddenInternal {
			if rest == f || strings.HasPrefix(rest, f+"/") {
				return false
			}
		}
		return true
	}
	if dep == module {
		return true
	}
	for _, a := range allowedThirdParty {
		if dep == a || strings.HasPrefix(dep, a+"/") {
			return true
		}
	}
	return false
}

func TestAllowedRejectsTheFatSide(t *testing.T) {
	for _, dep := range []string{"github.com/go-chi/chi/v5", "github.com/rs/zerolog", "github.com/prometheus/client_golang/prometheus", "github.com/fsnotify/fsnotify", module + "/api", module + "/internal/snapshot"} {
		if allowed(dep) {
			t.Errorf("allowed(%q) = true, want false", dep)
		}
	}
	for _, dep := range []string{"go.yaml.in/yaml/v3", module + "/internal/governance"} {
		if !allowed(dep) {
			t.Errorf("allowed(%q) = false, want true", dep)
		}
	}
}

// Package python holds the Python client (governanced_client, under src/)
// and runs its tests from go test, against the binary built from this
// checkout.
package python

import (
	"os"
	"os/exec"
	"testing"

	"github.com/celine-eu/governanced/internal/testcorpus"
	"github.com/celine-eu/governanced/internal/testserve"
)

// TestPythonClient runs the Python client's tests (python3 -m unittest)
// against governanced serve on a copy of the real tree. Without python3 it
// fails rather than skips, as the browser tests do: CI has it.
func TestPythonClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the Python tests")
	}
	py := os.Getenv("PYTHON")
	if py == "" {
		py = "python3"
	}
	if _, err := exec.LookPath(py); err != nil {
		t.Fatalf("%s is needed to test the Python client (Debian: apt-get install python3; or set PYTHON): %v", py, err)
	}
	if out, err := exec.Command(py, "-c", "import sys; sys.exit(sys.version_info < (3, 10))").CombinedOutput(); err != nil {
		t.Fatalf("%s is older than 3.10, the client's floor: %v %s", py, err, out)
	}
	cmd := exec.Command(py, "-m", "unittest", "discover", "-v", "-s", "tests", "-t", ".")
	cmd.Env = append(os.Environ(),
		"GOVERNANCED_BIN="+testserve.Binary(t),
		"GOVERNANCED_TESTDATA="+testcorpus.Root(t),
		"PYTHONPATH=src",
		"PYTHONDONTWRITEBYTECODE=1",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s -m unittest: %v\n%s", py, err, out)
	}
	t.Logf("%s", out)
}

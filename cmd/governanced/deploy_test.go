package main

import (
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/celine-eu/governanced/internal/yaml11"
)

// The Kubernetes manifests and the Dockerfile name flags, ports, probe paths
// and mounted files that the binary must accept and serve. These tests read
// them as a kubelet would and hold them to the binary, so a renamed flag or a
// moved mount fails here instead of in a rollout.

const deployDir = "../../deploy"

func loadManifest(t *testing.T, rel string) *yaml11.Node {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	n, err := yaml11.Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return n
}

func at(n *yaml11.Node, keys ...string) *yaml11.Node {
	for _, k := range keys {
		n = n.Get(k)
		if n == nil {
			return nil
		}
	}
	return n
}

func strs(n *yaml11.Node) []string {
	if n == nil {
		return nil
	}
	var out []string
	for _, it := range n.Items {
		out = append(out, it.Str)
	}
	return out
}

func containerNamed(pod *yaml11.Node, name string) *yaml11.Node {
	for _, c := range at(pod, "containers").Items {
		if at(c, "name").Str == name {
			return c
		}
	}
	return nil
}

// TestManifestsParse reads every manifest under deploy/ with the project's
// YAML reader: each is one document with apiVersion and kind (or a
// kustomization).
func TestManifestsParse(t *testing.T) {
	err := filepath.WalkDir(deployDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n, err := yaml11.Parse(b)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if strings.Contains(p, "/examples/") || n.Get("owners") != nil || n.Get("sources") != nil || n.Kind == yaml11.Map && n.Get("apiVersion") == nil && n.Get("kind") == nil {
			return nil // workflows, owners and governance data, placeholder maps
		}
		if n.Get("apiVersion") == nil || n.Get("kind") == nil {
			t.Errorf("%s: not a Kubernetes object (no apiVersion/kind)", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDeploymentAgreesWithBinary(t *testing.T) {
	dep := loadManifest(t, "base/deployment.yaml")
	pod := at(dep, "spec", "template", "spec")
	c := containerNamed(pod, "governanced")
	if c == nil {
		t.Fatal("no governanced container")
	}
	if n := at(dep, "spec", "replicas"); n == nil || n.Int < 2 {
		t.Errorf("replicas = %v, want 2 or more", n)
	}
	args := strs(at(c, "args"))
	checkServeArgs(t, "base/deployment.yaml", args, c, pod)

	patch := loadManifest(t, "overlays/configmap-tree/deployment-patch.yaml")
	ppod := at(patch, "spec", "template", "spec")
	pc := containerNamed(ppod, "governanced")
	if pc == nil {
		t.Fatal("the ConfigMap overlay patches no governanced container")
	}
	// The patch replaces args and the governance volume; mounts stay the base's.
	merged := *pod
	checkServeArgs(t, "overlays/configmap-tree", strs(at(pc, "args")), c, &merged)

	// Ports: the container port is the one --addr listens on, and the Service,
	// the probes, the ServiceMonitor and the NetworkPolicy use it.
	cfg, err := parseServeArgs(args[1:], func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(cfg.addr)
	var containerPort, portName string
	for _, p := range at(c, "ports").Items {
		containerPort, portName = strconv.FormatInt(at(p, "containerPort").Int, 10), at(p, "name").Str
	}
	if containerPort != port {
		t.Errorf("containerPort %s, but --addr listens on %s", containerPort, port)
	}
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
		get := at(c, probe, "httpGet")
		if get == nil || at(get, "path").Str != path || at(get, "port").Str != portName {
			t.Errorf("%s must GET %s on port %s", probe, path, portName)
		}
	}
	svc := loadManifest(t, "base/service.yaml")
	if tp := at(svc, "spec", "ports").Items[0].Get("targetPort"); tp.Str != portName {
		t.Errorf("Service targetPort %q, container port name %q", tp.Str, portName)
	}
	sm := loadManifest(t, "base/servicemonitor.yaml")
	ep := at(sm, "spec", "endpoints").Items[0]
	if at(ep, "path").Str != "/metrics" || at(ep, "port").Str != at(svc, "spec", "ports").Items[0].Get("name").Str {
		t.Errorf("ServiceMonitor must scrape /metrics on the Service's port")
	}
	np := loadManifest(t, "base/networkpolicy.yaml")
	if p := at(np, "spec", "ingress").Items[0].Get("ports").Items[0].Get("port"); strconv.FormatInt(p.Int, 10) != port {
		t.Errorf("NetworkPolicy admits port %d, server listens on %s", p.Int, port)
	}
	for _, route := range []string{"/healthz", "/readyz", "/metrics"} {
		if !strings.Contains(openAPIPaths(t), route+":") {
			t.Errorf("openapi.yaml has no %s", route)
		}
	}

	// Hardening the binary is built for: non-root, read-only root filesystem.
	if at(pod, "securityContext", "runAsNonRoot") == nil || !at(pod, "securityContext", "runAsNonRoot").Bool {
		t.Error("pod must run as non-root")
	}
	if ro := at(c, "securityContext", "readOnlyRootFilesystem"); ro == nil || !ro.Bool {
		t.Error("container must have a read-only root filesystem")
	}
}

// checkServeArgs parses the container's args with the real serve flag parser
// and checks every file it names lies on a mounted volume that provides it.
func checkServeArgs(t *testing.T, where string, args []string, c, pod *yaml11.Node) {
	t.Helper()
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("%s: args %q do not start with serve", where, args)
	}
	cfg, err := parseServeArgs(args[1:], func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatalf("%s: the binary refuses its args: %v", where, err)
	}
	mounts := map[string]string{} // mountPath → volume name
	for _, m := range at(c, "volumeMounts").Items {
		mounts[at(m, "mountPath").Str] = at(m, "name").Str
	}
	volumes := map[string]bool{}
	for _, v := range at(pod, "volumes").Items {
		volumes[at(v, "name").Str] = true
	}
	files := append(append([]string{}, cfg.inputs.Trees...), cfg.inputs.Owners...)
	if cfg.inputs.Placeholders != "" {
		files = append(files, cfg.inputs.Placeholders)
	}
	for _, f := range files {
		vol := ""
		for mp, name := range mounts {
			if f == mp || strings.HasPrefix(f, strings.TrimSuffix(mp, "/")+"/") {
				vol = name
			}
		}
		if vol == "" {
			t.Errorf("%s: %s is on no mounted volume", where, f)
		} else if !volumes[vol] {
			t.Errorf("%s: %s is mounted from volume %q, which the pod does not define", where, f, vol)
		}
	}
	// Files from the owners ConfigMap must be keys the generator creates.
	kust := loadManifest(t, "base/kustomization.yaml")
	generated := map[string]bool{}
	for _, g := range at(kust, "configMapGenerator").Items {
		for _, f := range strs(g.Get("files")) {
			generated[path.Base(f)] = true
		}
	}
	for _, f := range append(append([]string{}, cfg.inputs.Owners...), cfg.inputs.Placeholders) {
		if f != "" && strings.HasPrefix(f, "/etc/governanced/") && !generated[path.Base(f)] {
			t.Errorf("%s: %s is not a key of the generated ConfigMap", where, f)
		}
	}
}

func openAPIPaths(t *testing.T) string {
	b, err := os.ReadFile("../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDockerfileCommandParses holds the image's default command to the binary.
func TestDockerfileCommandParses(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^CMD \[(.*)\]$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("Dockerfile has no exec-form CMD")
	}
	var args []string
	for _, part := range strings.Split(string(m[1]), ",") {
		args = append(args, strings.Trim(strings.TrimSpace(part), `"`))
	}
	if args[0] != "serve" {
		t.Fatalf("CMD %q does not serve", args)
	}
	if _, err := parseServeArgs(args[1:], func(string) string { return "" }, io.Discard); err != nil {
		t.Errorf("the binary refuses the image's CMD %q: %v", args, err)
	}
	if !regexp.MustCompile(`(?m)^EXPOSE 8080$`).Match(b) || !regexp.MustCompile(`(?m)^USER 65532`).Match(b) {
		t.Error("the image must EXPOSE 8080 and run as the non-root user 65532")
	}
}

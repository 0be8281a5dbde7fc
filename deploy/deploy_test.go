package deploy

import (
	"fmt"
	"maps"
	"net"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The manifests are tested as Kubernetes sees them: kustomize renders the
// base and every overlay, each object is decoded strictly (an unknown or
// misspelt field is an error, as the API server's strict field validation
// makes it) into the k8s.io/api types, and the typed objects are held to
// what the API server would refuse and what would break the pod at run time.

// Names the checks rely on: the containers by name, the port by name.
const (
	serverName  = "governanced"
	gitSyncName = "git-sync"
	portName    = "http"
	serverPort  = 8080
)

// writers says where on disk each container writes, from each program's own
// documentation. Every container of a rendered pod must be listed: a new one
// fails the test until what it writes is said here.
var writers = map[string]func(c *corev1.Container) []string{
	// governanced writes nothing on disk but its --state-dir: uploads to
	// POST /validate are read into memory, and the demo tree is served
	// from the binary.
	serverName: func(c *corev1.Container) []string {
		if dir, ok := flagValue(c.Args, "--state-dir"); ok {
			return []string{dir}
		}
		return nil
	},
	// git-sync v4 writes its --root (the clone and the worktrees its --link
	// points at), a private git config it creates with os.CreateTemp before
	// the first sync, and $HOME, which its image sets to /tmp, for git's own
	// files (cookies, credentials).
	gitSyncName: func(c *corev1.Container) []string {
		root, ok := flagValue(c.Args, "--root")
		if !ok {
			root = envOr(c, "GITSYNC_ROOT", "/git")
		}
		return []string{root, envOr(c, "TMPDIR", "/tmp"), envOr(c, "HOME", "/tmp")}
	},
}

// serviceMonitor mirrors the part of the Prometheus operator's ServiceMonitor
// (monitoring.coreos.com/v1) the manifests use, field names as upstream, so a
// strict decode refuses a misspelt field; a field not mirrored here fails the
// decode until it is added.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              serviceMonitorSpec `json:"spec"`
}

type serviceMonitorSpec struct {
	JobLabel          string                   `json:"jobLabel,omitempty"`
	Selector          metav1.LabelSelector     `json:"selector"`
	NamespaceSelector namespaceSelector        `json:"namespaceSelector,omitzero"`
	Endpoints         []serviceMonitorEndpoint `json:"endpoints"`
}

type namespaceSelector struct {
	Any        bool     `json:"any,omitempty"`
	MatchNames []string `json:"matchNames,omitempty"`
}

type serviceMonitorEndpoint struct {
	Port          string             `json:"port,omitempty"`
	Path          string             `json:"path,omitempty"`
	Scheme        string             `json:"scheme,omitempty"`
	Interval      string             `json:"interval,omitempty"`
	ScrapeTimeout string             `json:"scrapeTimeout,omitempty"`
	Authorization *safeAuthorization `json:"authorization,omitempty"`
}

// safeAuthorization is the operator's SafeAuthorization: the scheme and a
// key of a Secret in the ServiceMonitor's namespace.
type safeAuthorization struct {
	Type        string                    `json:"type,omitempty"`
	Credentials *corev1.SecretKeySelector `json:"credentials,omitempty"`
}

func (s *serviceMonitor) DeepCopyObject() runtime.Object {
	c := *s
	c.ObjectMeta = *s.ObjectMeta.DeepCopy()
	s.Spec.Selector.DeepCopyInto(&c.Spec.Selector)
	c.Spec.NamespaceSelector.MatchNames = slices.Clone(s.Spec.NamespaceSelector.MatchNames)
	c.Spec.Endpoints = slices.Clone(s.Spec.Endpoints)
	for i, ep := range c.Spec.Endpoints {
		if ep.Authorization != nil {
			a := *ep.Authorization
			if a.Credentials != nil {
				a.Credentials = a.Credentials.DeepCopy()
			}
			c.Spec.Endpoints[i].Authorization = &a
		}
	}
	return &c
}

// decoder decodes JSON strictly into the registered types: unknown and
// duplicate fields are errors, and so is a kind nobody registered.
var decoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme,
		autoscalingv2.AddToScheme, networkingv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "ServiceMonitor"}, &serviceMonitor{})
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Strict: true})
}()

// rendering is one kustomization's output, decoded.
type rendering struct {
	dir         string
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	configMaps  map[string]*corev1.ConfigMap // by rendered (hashed) name
	pdbs        []*policyv1.PodDisruptionBudget
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	netpols     []*networkingv1.NetworkPolicy
	monitors    []*serviceMonitor
}

// kustomizations lists the directories kustomize builds: the base and every
// overlay.
func kustomizations(t *testing.T) []string {
	t.Helper()
	overlays, err := filepath.Glob("overlays/*/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(overlays) == 0 {
		t.Fatal("no overlays/*/kustomization.yaml: the ConfigMap overlay is missing")
	}
	dirs := []string{"base"}
	for _, o := range overlays {
		dirs = append(dirs, filepath.ToSlash(filepath.Dir(o)))
	}
	return dirs
}

// render builds dir on fs with kustomize and decodes every object strictly.
// Problems are returned, not reported, so tests can expect them.
func render(fs filesys.FileSystem, dir string) (*rendering, []string) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, dir)
	if err != nil {
		return nil, []string{fmt.Sprintf("kustomize build %s: %v", dir, err)}
	}
	r := &rendering{dir: dir, configMaps: map[string]*corev1.ConfigMap{}}
	var problems []string
	for _, res := range m.Resources() {
		where := fmt.Sprintf("%s: %s %s", dir, res.GetKind(), res.GetName())
		b, err := res.MarshalJSON()
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		obj, _, err := decoder.Decode(b, nil, nil)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			r.deployments = append(r.deployments, o)
		case *corev1.Service:
			r.services = append(r.services, o)
		case *corev1.ConfigMap:
			r.configMaps[o.Name] = o
		case *policyv1.PodDisruptionBudget:
			r.pdbs = append(r.pdbs, o)
		case *autoscalingv2.HorizontalPodAutoscaler:
			r.hpas = append(r.hpas, o)
		case *networkingv1.NetworkPolicy:
			r.netpols = append(r.netpols, o)
		case *serviceMonitor:
			r.monitors = append(r.monitors, o)
		default:
			problems = append(problems, fmt.Sprintf("%s: a %T, which this test does not check: add its checks", where, obj))
		}
	}
	return r, problems
}

// TestRenderedManifests renders the base and every overlay and checks every
// object.
func TestRenderedManifests(t *testing.T) {
	for _, dir := range kustomizations(t) {
		t.Run(dir, func(t *testing.T) {
			r, problems := render(filesys.MakeFsOnDisk(), dir)
			if r != nil {
				problems = append(problems, r.check()...)
			}
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
}

// TestBaseSyncsFromGit pins what tells the base and the ConfigMap overlay
// apart: the base syncs the tree with git-sync, the overlay mounts it from a
// ConfigMap and runs no git-sync.
func TestBaseSyncsFromGit(t *testing.T) {
	for dir, wantGitSync := range map[string]bool{"base": true, "overlays/configmap-tree": false} {
		r, problems := render(filesys.MakeFsOnDisk(), dir)
		if len(problems) > 0 {
			t.Fatalf("%s: %v", dir, problems)
		}
		spec := &r.deployments[0].Spec.Template.Spec
		if _, got := gitSync(spec); got != wantGitSync {
			t.Errorf("%s: runs git-sync = %v, want %v", dir, got, wantGitSync)
		}
		if !wantGitSync {
			tree, _ := flagValue(container(spec, serverName).Args, "--tree")
			if v := volumeAt(spec, container(spec, serverName), tree); v == nil || v.ConfigMap == nil {
				t.Errorf("%s: --tree %s is not on a ConfigMap volume", dir, tree)
			}
		}
	}
}

// TestConfigMapTreeReloadsInPlace: in the ConfigMap overlay an edit of the
// tree renders the same pod (no rollout) and the same ConfigMap name, so
// `kubectl apply -k` updates the mounted files in place and the server's
// watcher reloads them; the owners ConfigMap of the base keeps its hash
// suffix, so an edit of the registry is a rollout (deploy/README.md says
// which is which).
func TestConfigMapTreeReloadsInPlace(t *testing.T) {
	fs := filesys.MakeFsInMemory()
	for _, dir := range []string{"base", "overlays/configmap-tree"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := fs.WriteFile(dir+"/"+e.Name(), b); err != nil {
				t.Fatal(err)
			}
		}
	}
	renderPod := func() (*corev1.PodTemplateSpec, []string) {
		t.Helper()
		r, problems := render(fs, "overlays/configmap-tree")
		if len(problems) > 0 {
			t.Fatal(strings.Join(problems, "\n"))
		}
		return &r.deployments[0].Spec.Template, slices.Sorted(maps.Keys(r.configMaps))
	}
	before, namesBefore := renderPod()
	edit := func(file, text string) {
		t.Helper()
		b, err := fs.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.WriteFile(file, append(b, text...)); err != nil {
			t.Fatal(err)
		}
	}
	edit("overlays/configmap-tree/governance.yaml", "  datasets.ds_prod_gold.another:\n    title: Another\n")
	after, namesAfter := renderPod()
	if !reflect.DeepEqual(before, after) {
		t.Error("an edit of the tree changes the pod template: every edit would be a rollout, not a reload")
	}
	if !slices.Contains(namesAfter, "governance-tree") || !slices.Equal(namesBefore, namesAfter) {
		t.Errorf("ConfigMaps %v, then %v: the tree's keeps no stable name", namesBefore, namesAfter)
	}
	edit("base/owners.yaml", "  - id: another\n    type: schema:Corporation\n    name: Another\n    url: https://another.example\n")
	if owners, _ := renderPod(); reflect.DeepEqual(before, owners) {
		t.Error("an edit of the owners registry renders the same pod: deploy/README.md says it rolls out")
	}
}

// TestChecksCatch runs the checks on small kustomizations that each break one
// rule of the base, so a check that stops working fails here; the first
// breaks none and must pass. The second is the easy mistake in a ConfigMap
// overlay: a strategic merge of a configMap source onto the base's emptyDir
// volume keeps both.
func TestChecksCatch(t *testing.T) {
	base := map[string]string{}
	entries, err := os.ReadDir("base")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("base", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		base["base/"+e.Name()] = string(b)
	}
	kustomization := func(patch string) map[string]string {
		files := maps.Clone(base)
		files["overlay/kustomization.yaml"] = "resources: [../base]\npatches: [{path: patch.yaml}]\n"
		files["overlay/patch.yaml"] = patch
		return files
	}
	const head = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: governanced}\nspec:\n  template:\n    spec:\n"
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"nothing broken", kustomization(head + "      {}\n"), ""},
		{"a volume with two sources", kustomization(head +
			"      volumes:\n        - name: governance\n          configMap: {name: governance-tree}\n"),
			`volume "governance" has 2 sources (configMap, emptyDir)`},
		{"a misspelt field", kustomization(head +
			"      containers:\n        - name: governanced\n          volumeMount: []\n"),
			`unknown field "spec.template.spec.containers[0].volumeMount"`},
		{"an emptyDir with no size limit", kustomization(head +
			"      volumes:\n        - name: tmp\n          emptyDir: {sizeLimit: null}\n"),
			`emptyDir volume "tmp" has no sizeLimit`},
		{"a mount of a missing volume", kustomization(head +
			"      containers:\n        - name: governanced\n          volumeMounts:\n            - {name: scratch, mountPath: /scratch}\n"),
			`mounts volume "scratch", which the pod does not define`},
		{"a read-only /tmp", kustomization(head +
			"      initContainers:\n        - name: git-sync\n          volumeMounts:\n            - {name: git-sync-tmp, mountPath: /tmp, readOnly: true}\n"),
			`container git-sync writes /tmp, but mount /tmp is read-only`},
		{"git-sync with no writable /tmp", kustomization(head +
			"      initContainers:\n        - name: git-sync\n          volumeMounts:\n            - {name: git-sync-tmp, mountPath: /tmp, $patch: delete}\n"),
			`container git-sync writes /tmp, which is on its read-only root filesystem`},
		{"no explicit --addr", kustomization(head +
			"      containers:\n        - name: governanced\n          args: [serve, --tree=/governance/current]\n"),
			`governanced args [serve --tree=/governance/current] do not listen on :8080 explicitly`},
		{"a probe on the wrong path", kustomization(head +
			"      containers:\n        - name: governanced\n          readinessProbe: {httpGet: {path: /healthz, port: http}}\n"),
			`readinessProbe must GET /readyz on port "http"`},
		{"root", kustomization(head +
			"      securityContext: {runAsNonRoot: false}\n"),
			`pod does not set runAsNonRoot: true`},
		{"an image at :latest", kustomization(head +
			"      containers:\n        - name: governanced\n          image: ghcr.io/celine-eu/governanced:latest\n"),
			`container governanced runs image ghcr.io/celine-eu/governanced:latest (governanced) without a pinned tag`},
		{"an image with no tag", kustomization(head +
			"      initContainers:\n        - name: git-sync\n          image: registry.k8s.io/git-sync/git-sync\n"),
			`container git-sync runs image registry.k8s.io/git-sync/git-sync (git-sync) without a pinned tag`},
		{"a ServiceMonitor with no token", func() map[string]string {
			files := kustomization(head + "      {}\n")
			files["overlay/kustomization.yaml"] = "resources: [../base]\npatches: [{path: patch.yaml}, {path: monitor.yaml}]\n"
			files["overlay/monitor.yaml"] = "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: governanced}\nspec:\n  endpoints:\n    - {port: http, path: /metrics, interval: 30s}\n"
			return files
		}(), `ServiceMonitor governanced sends no bearer token from Secret governanced-auth key token`},
		{"a token file from a ConfigMap", kustomization(head +
			"      containers:\n        - name: governanced\n          args: [serve, --addr=:8080, --tree=/governance/current, --auth-token-file=/etc/governanced/owners.yaml]\n"),
			`governanced --auth-token-file /etc/governanced/owners.yaml is on no Secret volume`},
		{"git-sync as a plain container", kustomization(head +
			"      initContainers:\n        - {name: git-sync, $patch: delete}\n" +
			"      containers:\n        - name: git-sync\n          image: registry.k8s.io/git-sync/git-sync:v4.4.0\n          args: [--root=/governance]\n" +
			"          securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}\n" +
			"          volumeMounts: [{name: governance, mountPath: /governance}, {name: git-sync-tmp, mountPath: /tmp}]\n"),
			`git-sync is not a sidecar init container with a startupProbe: governanced would start before the first clone`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := filesys.MakeFsInMemory()
			for name, content := range c.files {
				if err := fs.WriteFile(name, []byte(content)); err != nil {
					t.Fatal(err)
				}
			}
			r, problems := render(fs, "overlay")
			if r != nil {
				problems = append(problems, r.check()...)
			}
			if c.want == "" {
				for _, p := range problems {
					t.Error(p)
				}
				return
			}
			for _, p := range problems {
				if strings.Contains(p, c.want) {
					return
				}
			}
			t.Errorf("no problem says %q; got:\n%s", c.want, strings.Join(problems, "\n"))
		})
	}
}

// check holds a rendering to the rules; it returns every problem found.
func (r *rendering) check() []string {
	var problems []string
	fail := func(format string, args ...any) {
		problems = append(problems, r.dir+": "+fmt.Sprintf(format, args...))
	}
	if len(r.deployments) != 1 {
		fail("%d Deployments, want 1", len(r.deployments))
		return problems
	}
	dep := r.deployments[0]
	tmpl := &dep.Spec.Template
	spec := &tmpl.Spec
	for _, p := range checkPod(spec, r.configMaps) {
		fail("Deployment %s: %s", dep.Name, p)
	}
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas < 2 {
		fail("Deployment %s: fewer than 2 replicas", dep.Name)
	}
	if !selects(dep.Spec.Selector, tmpl.Labels) {
		fail("Deployment %s: its selector does not match its pod template's labels", dep.Name)
	}

	for _, svc := range r.services {
		if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(tmpl.Labels)) {
			fail("Service %s selects no pod of the Deployment", svc.Name)
		}
		for _, p := range svc.Spec.Ports {
			if p.TargetPort.String() != portName {
				fail("Service %s port %s targets %q, not the container port %q", svc.Name, p.Name, p.TargetPort.String(), portName)
			}
		}
	}
	if len(r.services) != 1 {
		fail("%d Services, want 1", len(r.services))
	}
	tokenSecret, tokenKey := authSecret(spec)
	for _, sm := range r.monitors {
		for _, ep := range sm.Spec.Endpoints {
			if ep.Path != "/metrics" || len(r.services) == 0 || len(r.services[0].Spec.Ports) == 0 || ep.Port != r.services[0].Spec.Ports[0].Name {
				fail("ServiceMonitor %s must scrape /metrics on the Service's port", sm.Name)
			}
			// With authentication on, GET /metrics answers 401 without the
			// token: the monitor must send the one the pods read.
			if tokenSecret != "" {
				a := ep.Authorization
				if a == nil || a.Type != "Bearer" || a.Credentials == nil || a.Credentials.Name != tokenSecret || a.Credentials.Key != tokenKey {
					fail("ServiceMonitor %s sends no bearer token from Secret %s key %s, which governanced's --auth-token-file reads: /metrics would answer 401", sm.Name, tokenSecret, tokenKey)
				}
			}
		}
		for _, svc := range r.services {
			if !selects(&sm.Spec.Selector, svc.Labels) {
				fail("ServiceMonitor %s does not select Service %s", sm.Name, svc.Name)
			}
		}
	}
	for _, np := range r.netpols {
		if !selects(&np.Spec.PodSelector, tmpl.Labels) {
			fail("NetworkPolicy %s does not select the pods", np.Name)
		}
		admitted := false
		for _, in := range np.Spec.Ingress {
			for _, p := range in.Ports {
				if p.Port != nil && p.Port.IntValue() == serverPort && (p.Protocol == nil || *p.Protocol == corev1.ProtocolTCP) {
					admitted = true
				}
			}
		}
		if !admitted {
			fail("NetworkPolicy %s does not admit TCP port %d", np.Name, serverPort)
		}
	}
	for _, pdb := range r.pdbs {
		if !selects(pdb.Spec.Selector, tmpl.Labels) {
			fail("PodDisruptionBudget %s does not select the pods", pdb.Name)
		}
	}
	for _, hpa := range r.hpas {
		ref := hpa.Spec.ScaleTargetRef
		if ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" || ref.Name != dep.Name {
			fail("HorizontalPodAutoscaler %s scales %s %s, not the Deployment", hpa.Name, ref.Kind, ref.Name)
		}
		if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 {
			fail("HorizontalPodAutoscaler %s may scale below 2 replicas", hpa.Name)
		}
	}
	for kind, n := range map[string]int{"PodDisruptionBudget": len(r.pdbs), "HorizontalPodAutoscaler": len(r.hpas), "NetworkPolicy": len(r.netpols), "ServiceMonitor": len(r.monitors)} {
		if n != 1 {
			fail("%d %ss, want 1", n, kind)
		}
	}
	return problems
}

// checkPod holds a pod spec to what the API server refuses and what breaks
// its containers at run time.
func checkPod(spec *corev1.PodSpec, configMaps map[string]*corev1.ConfigMap) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	volumes := map[string]bool{}
	for _, v := range spec.Volumes {
		if volumes[v.Name] {
			fail("volume %q is defined twice", v.Name)
		}
		volumes[v.Name] = true
		if src := volumeSources(v); len(src) != 1 {
			fail("volume %q has %d sources (%s): the API server accepts exactly one", v.Name, len(src), strings.Join(src, ", "))
		}
		if v.EmptyDir != nil && (v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.Sign() <= 0) {
			fail("emptyDir volume %q has no sizeLimit: it may fill the node's disk", v.Name)
		}
		if v.ConfigMap != nil && configMaps[v.ConfigMap.Name] == nil && (v.ConfigMap.Optional == nil || !*v.ConfigMap.Optional) {
			fail("volume %q mounts ConfigMap %q, which the kustomization does not render", v.Name, v.ConfigMap.Name)
		}
	}

	sc := spec.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		fail("pod does not set runAsNonRoot: true")
	}
	if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		fail("pod does not set a non-zero runAsUser")
	}

	for _, c := range containers(spec) {
		mounts := map[string]bool{}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				fail("container %s mounts volume %q, which the pod does not define", c.Name, m.Name)
			}
			if mounts[m.MountPath] {
				fail("container %s mounts %s twice", c.Name, m.MountPath)
			}
			mounts[m.MountPath] = true
		}
		// A tag names a release (or a digest pins it): :latest, or no tag,
		// lets replicas run different binaries and a rollback return to
		// an unknown one.
		if name, tag, _ := strings.Cut(c.Image[strings.LastIndex(c.Image, "/")+1:], ":"); !strings.Contains(c.Image, "@sha256:") && (tag == "" || tag == "latest") {
			fail("container %s runs image %s (%s) without a pinned tag", c.Name, c.Image, name)
		}
		csc := c.SecurityContext
		if csc == nil || csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem {
			fail("container %s does not run with readOnlyRootFilesystem: true", c.Name)
		}
		if csc == nil || csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation {
			fail("container %s does not set allowPrivilegeEscalation: false", c.Name)
		}
		if csc == nil || csc.Capabilities == nil || !slices.Contains(csc.Capabilities.Drop, "ALL") {
			fail("container %s does not drop ALL capabilities", c.Name)
		}
		writes, known := writers[c.Name]
		if !known {
			fail("container %s: what it writes on disk is not known to this test (see writers)", c.Name)
			continue
		}
		for _, p := range compactSorted(writes(c)) {
			if msg := writable(spec, c, p); msg != "" {
				fail("container %s writes %s, %s", c.Name, p, msg)
			}
		}
	}

	server := container(spec, serverName)
	if server == nil {
		fail("no %s container", serverName)
		return problems
	}
	problems = append(problems, checkServer(spec, server, configMaps)...)
	if gs, ok := gitSync(spec); ok {
		problems = append(problems, checkGitSync(spec, server, gs)...)
	}
	return problems
}

// checkServer checks the governanced container: its address, port, probes
// and the files its arguments name.
func checkServer(spec *corev1.PodSpec, c *corev1.Container, configMaps map[string]*corev1.ConfigMap) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if len(c.Args) == 0 || c.Args[0] != "serve" {
		fail("governanced args %q do not start with serve", c.Args)
	}
	// The binary's own default address is loopback, which no probe or Service
	// reaches: the manifests must name the pod's address.
	addr, _ := flagValue(c.Args, "--addr")
	if host, port, err := net.SplitHostPort(addr); err != nil || (host != "" && host != "0.0.0.0" && host != "::") || port != strconv.Itoa(serverPort) {
		fail("governanced args %v do not listen on :%d explicitly (--addr=:%d)", c.Args, serverPort, serverPort)
	}
	var port *corev1.ContainerPort
	for i := range c.Ports {
		if c.Ports[i].Name == portName {
			port = &c.Ports[i]
		}
	}
	if port == nil || port.ContainerPort != serverPort {
		fail("governanced has no container port %q on %d", portName, serverPort)
	}
	for name, probe := range map[string]struct {
		p    *corev1.Probe
		path string
	}{"livenessProbe": {c.LivenessProbe, "/healthz"}, "readinessProbe": {c.ReadinessProbe, "/readyz"}} {
		p := probe.p
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != probe.path || p.HTTPGet.Port.String() != portName {
			fail("%s must GET %s on port %q", name, probe.path, portName)
		}
	}

	// The expensive requests' working memory (--max-work-memory, 1GiB by
	// default) fits the container's memory limit with room for the served
	// tree and the runtime: at most half of it.
	budget := int64(1 << 30)
	if v, ok := flagValue(c.Args, "--max-work-memory"); ok {
		q, err := resource.ParseQuantity(strings.TrimSuffix(v, "B"))
		if err != nil {
			fail("governanced --max-work-memory %q: %v", v, err)
		}
		budget = q.Value()
	}
	if limit := c.Resources.Limits.Memory(); limit.IsZero() || budget > limit.Value()/2 {
		fail("governanced --max-work-memory is %d bytes, more than half the container's memory limit %s: requests could take the pod past it", budget, limit)
	}
	// A token file comes from a Secret, never from the image or a ConfigMap.
	if f, ok := flagValue(c.Args, "--auth-token-file"); ok {
		if v := volumeAt(spec, c, f); v == nil || v.Secret == nil {
			fail("governanced --auth-token-file %s is on no Secret volume", f)
		}
	}
	// Every file the arguments name is on a mounted volume; a file from a
	// ConfigMap volume is one of the ConfigMap's keys.
	for _, flag := range []string{"--tree", "--owners", "--placeholders"} {
		for _, f := range flagValues(c.Args, flag) {
			v := volumeAt(spec, c, f)
			if v == nil {
				fail("governanced %s %s is on no mounted volume", flag, f)
				continue
			}
			if v.ConfigMap == nil || f == mountOf(c, f).MountPath {
				continue
			}
			key := strings.SplitN(strings.TrimPrefix(f, strings.TrimSuffix(mountOf(c, f).MountPath, "/")+"/"), "/", 2)[0]
			if cm := configMaps[v.ConfigMap.Name]; cm != nil {
				if _, ok := cm.Data[key]; !ok {
					fail("governanced %s %s: ConfigMap %s has no key %q", flag, f, cm.Name, key)
				}
			}
		}
	}
	return problems
}

// checkGitSync checks that git-sync and governanced share the tree and that
// governanced starts only once git-sync has cloned it: before the first
// clone there is no tree, and governanced refuses to start on a missing one.
func checkGitSync(spec *corev1.PodSpec, server, gs *corev1.Container) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if f, ok := flagValue(gs.Args, "--password-file"); ok {
		if v := volumeAt(spec, gs, f); v == nil || v.Secret == nil {
			fail("git-sync --password-file %s is on no Secret volume", f)
		}
	}
	root, _ := flagValue(gs.Args, "--root")
	link, _ := flagValue(gs.Args, "--link")
	tree, _ := flagValue(server.Args, "--tree")
	if link == "" || root == "" {
		fail("git-sync needs --root and --link")
	} else if want := path.Join(root, link); !path.IsAbs(link) && tree != want {
		fail("governanced --tree %s is not git-sync's link %s", tree, want)
	}
	if gv, sv := volumeAt(spec, gs, root), volumeAt(spec, server, tree); gv == nil || sv == nil || gv.Name != sv.Name {
		fail("git-sync's --root %s and governanced's --tree %s are not on one shared volume", root, tree)
	}

	sidecar := slices.ContainsFunc(spec.InitContainers, func(c corev1.Container) bool { return c.Name == gitSyncName }) &&
		gs.RestartPolicy != nil && *gs.RestartPolicy == corev1.ContainerRestartPolicyAlways
	if !sidecar || gs.StartupProbe == nil || gs.StartupProbe.HTTPGet == nil {
		fail("git-sync is not a sidecar init container with a startupProbe: governanced would start before the first clone")
		return problems
	}
	// git-sync's HTTP endpoint answers / with 200 only after the first sync.
	bind, _ := flagValue(gs.Args, "--http-bind")
	_, bindPort, err := net.SplitHostPort(bind)
	if err != nil {
		fail("git-sync has a startupProbe but no --http-bind to answer it")
		return problems
	}
	probePort := gs.StartupProbe.HTTPGet.Port.String()
	for _, p := range gs.Ports {
		if p.Name == probePort {
			probePort = strconv.Itoa(int(p.ContainerPort))
		}
	}
	if gs.StartupProbe.HTTPGet.Path != "/" || probePort != bindPort {
		fail("git-sync's startupProbe must GET / on its --http-bind port %s", bindPort)
	}
	return problems
}

// authSecret is the Secret and key governanced's --auth-token-file is read
// from ("" when the flag is not given or the file is on no Secret volume).
func authSecret(spec *corev1.PodSpec) (name, key string) {
	c := container(spec, serverName)
	if c == nil {
		return "", ""
	}
	f, ok := flagValue(c.Args, "--auth-token-file")
	if !ok {
		return "", ""
	}
	v := volumeAt(spec, c, f)
	if v == nil || v.Secret == nil {
		return "", ""
	}
	file := strings.TrimPrefix(f, strings.TrimSuffix(mountOf(c, f).MountPath, "/")+"/")
	for _, it := range v.Secret.Items {
		if it.Path == file {
			return v.Secret.SecretName, it.Key
		}
	}
	return v.Secret.SecretName, file
}

// volumeSources names the sources a volume sets (its non-nil VolumeSource
// fields, by JSON name).
func volumeSources(v corev1.Volume) []string {
	var names []string
	rv := reflect.ValueOf(v.VolumeSource)
	for i := 0; i < rv.NumField(); i++ {
		if f := rv.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			names = append(names, strings.Split(rv.Type().Field(i).Tag.Get("json"), ",")[0])
		}
	}
	slices.Sort(names)
	return names
}

// writable says why container c cannot write under p ("" when it can).
func writable(spec *corev1.PodSpec, c *corev1.Container, p string) string {
	m := mountOf(c, p)
	if m == nil {
		return "which is on its read-only root filesystem"
	}
	if m.ReadOnly {
		return fmt.Sprintf("but mount %s is read-only", m.MountPath)
	}
	v := volumeNamed(spec, m.Name)
	if v == nil {
		return "" // reported as a missing volume
	}
	if v.ConfigMap != nil || v.Secret != nil || v.DownwardAPI != nil || v.Projected != nil {
		return fmt.Sprintf("but mount %s is volume %q, which Kubernetes mounts read-only", m.MountPath, v.Name)
	}
	return ""
}

// mountOf returns the mount of c that holds path p (the deepest), or nil.
func mountOf(c *corev1.Container, p string) *corev1.VolumeMount {
	var best *corev1.VolumeMount
	for i := range c.VolumeMounts {
		m := &c.VolumeMounts[i]
		mp := strings.TrimSuffix(m.MountPath, "/")
		if (p == mp || strings.HasPrefix(p, mp+"/")) && (best == nil || len(mp) > len(best.MountPath)) {
			best = m
		}
	}
	return best
}

// volumeAt returns the volume that holds path p in container c, or nil.
func volumeAt(spec *corev1.PodSpec, c *corev1.Container, p string) *corev1.Volume {
	m := mountOf(c, p)
	if c == nil || m == nil {
		return nil
	}
	return volumeNamed(spec, m.Name)
}

func volumeNamed(spec *corev1.PodSpec, name string) *corev1.Volume {
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			return &spec.Volumes[i]
		}
	}
	return nil
}

// containers returns the init containers and the containers of the pod.
func containers(spec *corev1.PodSpec) []*corev1.Container {
	var out []*corev1.Container
	for i := range spec.InitContainers {
		out = append(out, &spec.InitContainers[i])
	}
	for i := range spec.Containers {
		out = append(out, &spec.Containers[i])
	}
	return out
}

func container(spec *corev1.PodSpec, name string) *corev1.Container {
	for _, c := range containers(spec) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func gitSync(spec *corev1.PodSpec) (*corev1.Container, bool) {
	c := container(spec, gitSyncName)
	return c, c != nil
}

// flagValues returns every value of a --name=value or --name value argument.
func flagValues(args []string, name string) []string {
	var out []string
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			out = append(out, v)
		} else if a == name && i+1 < len(args) {
			out = append(out, args[i+1])
		}
	}
	return out
}

// flagValue returns the last value of a flag, as a flag parser keeps it.
func flagValue(args []string, name string) (string, bool) {
	vs := flagValues(args, name)
	if len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

// envOr returns the value the container sets for an environment variable,
// or def (the image's default).
func envOr(c *corev1.Container, name, def string) string {
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom == nil {
			return e.Value
		}
	}
	return def
}

func compactSorted(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

func selects(sel *metav1.LabelSelector, l map[string]string) bool {
	if sel == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && !s.Empty() && s.Matches(labels.Set(l))
}

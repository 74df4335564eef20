package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/types"
	yamlv3 "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/project"
	"github.com/olm-render/olm-render/test/fixture"
)

// openshiftDir is the OpenShift example.
var openshiftDir = filepath.Join(repo, "examples", "openshift")

// TestOpenShiftExamplesDecode decodes every YAML document under examples/openshift by its
// kind, strictly where the kind has a Go type, and checks what each must hold: the plugin
// sidecar fit for the restricted SCC, the health checks byte for byte as examples/argocd/health
// and examples/flux ship them, the plugin run for --olm=running on OpenShift, the workflow on
// the release the other examples pin.
func TestOpenShiftExamplesDecode(t *testing.T) {
	checks := map[string]func(t *testing.T, path string, doc []byte){
		"v1/Namespace":                                  decodeInto[corev1.Namespace],
		"operators.coreos.com/v1/OperatorGroup":         decodeInto[operatorsv1.OperatorGroup],
		"operators.coreos.com/v1alpha1/CatalogSource":   checkOpenShiftCatalogSource,
		"operators.coreos.com/v1alpha1/Subscription":    decodeInto[v1alpha1.Subscription],
		"kustomize.config.k8s.io/v1beta1/Kustomization": checkKustomization,
		"argoproj.io/v1beta1/ArgoCD":                    checkArgoCD,
		"argoproj.io/v1alpha1/Application":              checkApplication,
		"argoproj.io/v1alpha1/ConfigManagementPlugin":   checkPluginCopy,
		"source.toolkit.fluxcd.io/v1/GitRepository":     decodeInto[gitRepository],
		"kustomize.toolkit.fluxcd.io/v1/Kustomization":  checkFluxKustomization,
		"GitHub Actions workflow (name, on, jobs)":      checkWorkflow,
		"olm-render.dev/v1alpha1/RenderConfig":          checkProjectFile,
	}
	seen := map[string]int{}
	err := filepath.WalkDir(openshiftDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(path) != ".yaml" && filepath.Ext(path) != ".yml") {
			return err
		}
		for _, doc := range yamlDocuments(t, path) {
			kind := documentKind(t, path, doc)
			check := checks[kind]
			if check == nil {
				t.Errorf("%s: a %s, which this test does not check", path, kind)
				continue
			}
			seen[kind]++
			t.Run(strings.TrimPrefix(path, openshiftDir+string(filepath.Separator))+"/"+kind, func(t *testing.T) {
				check(t, path, doc)
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for kind := range checks {
		if seen[kind] == 0 {
			t.Errorf("no %s under %s", kind, openshiftDir)
		}
	}
}

// documentKind returns apiVersion/kind of a document, or names a GitHub Actions workflow (read
// as YAML 1.2, as GitHub reads it: `on` is a key, not true).
func documentKind(t *testing.T, path string, doc []byte) string {
	t.Helper()
	var head map[string]any
	if err := yamlv3.Unmarshal(doc, &head); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if head["kind"] == nil && head["name"] != nil && head["on"] != nil && head["jobs"] != nil {
		return "GitHub Actions workflow (name, on, jobs)"
	}
	return fmt.Sprint(head["apiVersion"]) + "/" + fmt.Sprint(head["kind"])
}

// decodeInto decodes a document into T, rejecting unknown fields.
func decodeInto[T any](t *testing.T, path string, doc []byte) {
	t.Helper()
	decodeStrict[T](t, path, doc)
}

// decodeStrict decodes a document into a T, rejecting unknown fields.
func decodeStrict[T any](t *testing.T, path string, doc []byte) T {
	t.Helper()
	var v T
	if err := yaml.UnmarshalStrict(doc, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// checkOpenShiftCatalogSource: the pinned copy of community-operators, by the tag olm-render
// lock pins (a digest typed by hand is what the example says never to do).
func checkOpenShiftCatalogSource(t *testing.T, path string, doc []byte) {
	cs := decodeStrict[v1alpha1.CatalogSource](t, path, doc)
	if cs.Namespace != "openshift-marketplace" || cs.Spec.SourceType != v1alpha1.SourceTypeGrpc {
		t.Errorf("%s: CatalogSource %s/%s of type %s, want one in openshift-marketplace of type grpc", path, cs.Namespace, cs.Name, cs.Spec.SourceType)
	}
	if !strings.HasPrefix(cs.Spec.Image, "registry.redhat.io/redhat/community-operator-index:v4.") {
		t.Errorf("%s: spec.image %s, want the community index by its OpenShift tag (olm-render lock pins its digest)", path, cs.Spec.Image)
	}
}

// checkKustomization: a kustomize Kustomization; the inputs' one lists the approver.
func checkKustomization(t *testing.T, path string, doc []byte) {
	k := decodeStrict[types.Kustomization](t, path, doc)
	for _, r := range k.Resources {
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), r)); err != nil && r != approverPath {
			t.Errorf("%s: resource %s: %v", path, r, err)
		}
	}
	if filepath.Base(filepath.Dir(path)) != "inputs" {
		return
	}
	if !slices.Contains(k.Resources, approverPath) {
		t.Errorf("%s: resources %v do not name the approver (%s)", path, k.Resources, approverPath)
	}
	approver := filepath.Join(filepath.Dir(path), approverPath)
	if _, err := os.Stat(approver); err != nil {
		t.Logf("%s: %s is not there yet (examples/approver)", path, approverPath)
		return
	}
	if _, err := os.Stat(filepath.Join(approver, "kustomization.yaml")); err != nil {
		t.Errorf("%s: %s holds no kustomization.yaml: %v", path, approverPath, err)
	}
}

// approverPath is where the inputs' kustomization finds olm-render approve's Deployment.
const approverPath = "../../approver"

// checkArgoCD: the ArgoCD resource's sidecar, its volumes and its health checks.
func checkArgoCD(t *testing.T, path string, doc []byte) {
	var u unstructured.Unstructured
	if err := yaml.Unmarshal(doc, &u.Object); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var spec struct {
		Repo struct {
			Volumes           []corev1.Volume    `json:"volumes"`
			SidecarContainers []corev1.Container `json:"sidecarContainers"`
		} `json:"repo"`
		ResourceHealthChecks []struct {
			Group string `json:"group,omitempty"`
			Kind  string `json:"kind"`
			Check string `json:"check"`
		} `json:"resourceHealthChecks"`
	}
	specYAML, err := yaml.Marshal(u.Object["spec"])
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(specYAML, &spec); err != nil {
		t.Fatalf("%s: spec: %v", path, err)
	}
	if len(spec.Repo.SidecarContainers) != 1 {
		t.Fatalf("%s: %d sidecar containers, want the olm-render one", path, len(spec.Repo.SidecarContainers))
	}
	checkSidecar(t, path, spec.Repo.SidecarContainers[0], spec.Repo.Volumes)

	want := map[string]string{
		"operators.coreos.com/ClusterServiceVersion": "clusterserviceversion.lua",
		"operators.coreos.com/Subscription":          "subscription.lua",
		"ConfigMap":                                  "configmap.lua",
	}
	for _, hc := range spec.ResourceHealthChecks {
		key := hc.Kind
		if hc.Group != "" {
			key = hc.Group + "/" + hc.Kind
		}
		file, ok := want[key]
		if !ok {
			t.Errorf("%s: a health check for %s, which examples/argocd/health has none for", path, key)
			continue
		}
		delete(want, key)
		if hc.Check != argoScript(t, file) {
			t.Errorf("%s: the health check for %s differs from examples/argocd/health/%s; copy it over again, indented by 6 spaces", path, key, file)
		}
	}
	for key := range want {
		t.Errorf("%s: no health check for %s", path, key)
	}
}

// checkSidecar: the plugin sidecar runs Argo CD's cmp-server with the volumes OpenShift GitOps's
// repo-server pod has, under the restricted SCC, from the release image the other examples run.
func checkSidecar(t *testing.T, path string, c corev1.Container, volumes []corev1.Volume) {
	if want := sidecarImageOf(t, filepath.Join(repo, "examples", "argocd", "repo-server-patch.yaml")); c.Image != want {
		t.Errorf("%s: sidecar image %s, want %s (as examples/argocd/repo-server-patch.yaml)", path, c.Image, want)
	}
	if !slices.Equal(c.Command, []string{"/var/run/argocd/argocd-cmp-server"}) {
		t.Errorf("%s: sidecar command %v, want Argo CD's cmp-server", path, c.Command)
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatalf("%s: the sidecar has no securityContext", path)
	case sc.RunAsUser != nil:
		t.Errorf("%s: runAsUser %d: the restricted SCC assigns the UID", path, *sc.RunAsUser)
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
		t.Errorf("%s: runAsNonRoot is not true", path)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("%s: allowPrivilegeEscalation is not false", path)
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("%s: capabilities %+v, want drop [ALL] and nothing added", path, sc.Capabilities)
	case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("%s: seccompProfile %+v, want RuntimeDefault", path, sc.SeccompProfile)
	}
	// var-files and plugins are volumes the operator gives the repo-server pod; the others are
	// the resource's own.
	have := map[string]bool{"var-files": true, "plugins": true}
	for _, v := range volumes {
		have[v.Name] = true
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		if !have[m.Name] {
			t.Errorf("%s: the sidecar mounts %s, which is no volume of the repo-server pod", path, m.Name)
		}
		mounts[m.MountPath] = m
	}
	for mountPath, want := range map[string]corev1.VolumeMount{
		"/var/run/argocd":                            {Name: "var-files"},
		"/home/argocd/cmp-server/plugins":            {Name: "plugins"},
		"/home/argocd/cmp-server/config/plugin.yaml": {Name: "olm-render-plugin", SubPath: "plugin.yaml"},
		"/tmp": {},
	} {
		m, ok := mounts[mountPath]
		switch {
		case !ok:
			t.Errorf("%s: the sidecar mounts nothing at %s", path, mountPath)
		case want.Name != "" && (m.Name != want.Name || m.SubPath != want.SubPath):
			t.Errorf("%s: the sidecar mounts %s (subPath %q) at %s, want %s (subPath %q)", path, m.Name, m.SubPath, mountPath, want.Name, want.SubPath)
		case mountPath == "/tmp" && (m.Name == "tmp" || !emptyDir(volumes, m.Name)):
			t.Errorf("%s: /tmp is %s, want an emptyDir of the sidecar's own (not the repo-server's tmp)", path, m.Name)
		}
	}
}

// emptyDir reports whether the named volume is an emptyDir.
func emptyDir(volumes []corev1.Volume, name string) bool {
	for _, v := range volumes {
		if v.Name == name {
			return v.EmptyDir != nil
		}
	}
	return false
}

// sidecarImageOf returns the image of the olm-render container of a Deployment patch.
func sidecarImageOf(t *testing.T, path string) string {
	t.Helper()
	var d struct {
		Spec struct {
			Template struct {
				Spec corev1.PodSpec `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	readYAMLFile(t, path, &d)
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "olm-render" {
			return c.Image
		}
	}
	t.Fatalf("%s: no olm-render container", path)
	return ""
}

// checkApplication: the Application runs the plugin for --olm=running on OpenShift.
func checkApplication(t *testing.T, path string, doc []byte) {
	var app struct {
		Spec struct {
			Source struct {
				Path   string `json:"path"`
				Plugin struct {
					Name       string `json:"name"`
					Parameters []struct {
						Name   string `json:"name"`
						String string `json:"string"`
					} `json:"parameters"`
				} `json:"plugin"`
			} `json:"source"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(doc, &app); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	src := app.Spec.Source
	if src.Plugin.Name != "olm-render-v1" {
		t.Errorf("%s: plugin %q, want olm-render-v1", path, src.Plugin.Name)
	}
	if _, err := os.Stat(filepath.Join(repo, src.Path, "kustomization.yaml")); err != nil {
		t.Errorf("%s: source path %s: %v", path, src.Path, err)
	}
	params := map[string]string{}
	for _, p := range src.Plugin.Parameters {
		params[p.Name] = p.String
	}
	if len(params) > 0 {
		t.Errorf("%s: plugin parameters %v: the project file above the source path holds the settings, the Application repeats none", path, params)
	}
}

// checkProjectFile: the project file sets what OpenShift needs: OLM running, the global
// catalogs in openshift-marketplace, no certificate provider (OLM issues its own).
func checkProjectFile(t *testing.T, path string, doc []byte) {
	cfg, err := project.Parse(path, doc)
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Options
	if o.OLM != "running" || o.GlobalCatalogNamespace != "openshift-marketplace" || o.CertProvider != "" {
		t.Errorf("%s: options %+v: want olm running, globalCatalogNamespace openshift-marketplace and no certProvider", path, o)
	}
}

// checkPluginCopy: the plugin configuration is examples/argocd's, byte for byte.
func checkPluginCopy(t *testing.T, path string, _ []byte) {
	if readFile(t, path) != readFile(t, filepath.Join(repo, "examples", "argocd", "plugin.yaml")) {
		t.Errorf("%s differs from examples/argocd/plugin.yaml; copy it over again", path)
	}
}

// gitRepository is a Flux GitRepository, as far as the example sets it.
type gitRepository struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		Interval string `json:"interval"`
		URL      string `json:"url"`
		Ref      struct {
			Branch string `json:"branch"`
		} `json:"ref"`
	} `json:"spec"`
}

// checkFluxKustomization: it applies rendered/, waits, and judges with the --olm=running
// fragment of examples/flux/health-check-exprs.yaml.
func checkFluxKustomization(t *testing.T, path string, doc []byte) {
	k := decodeStrict[struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Spec struct {
			Interval  string `json:"interval"`
			SourceRef struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"sourceRef"`
			Path             string            `json:"path"`
			Prune            bool              `json:"prune"`
			Wait             bool              `json:"wait"`
			Timeout          string            `json:"timeout"`
			HealthCheckExprs []fluxHealthCheck `json:"healthCheckExprs"`
		} `json:"spec"`
	}](t, path, doc)
	if k.Spec.Path != "./rendered" || !k.Spec.Wait || !k.Spec.Prune {
		t.Errorf("%s: path %s, wait %t, prune %t; want ./rendered, waiting and pruning", path, k.Spec.Path, k.Spec.Wait, k.Spec.Prune)
	}
	want := readFluxKustomizations(t)[targetRunning].Spec.HealthCheckExprs
	if !slices.Equal(k.Spec.HealthCheckExprs, want) {
		t.Errorf("%s: healthCheckExprs differ from the --olm=running fragment of %s; copy them over again", path, fluxHealthExprs)
	}
}

// checkWorkflow: the workflows run the release the other example workflows install, and name
// no setting of the project file on a command line; the Flux CI one renders inputs/ into
// rendered/ and commits it. TestOpenShiftWorkflows runs them.
func checkWorkflow(t *testing.T, path string, doc []byte) {
	type step struct {
		ID   string            `yaml:"id"`
		Name string            `yaml:"name"`
		If   string            `yaml:"if"`
		Uses string            `yaml:"uses"`
		With map[string]any    `yaml:"with"`
		Env  map[string]string `yaml:"env"`
		Run  string            `yaml:"run"`
	}
	type workflow struct {
		Name        string            `yaml:"name"`
		On          map[string]any    `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Concurrency map[string]any    `yaml:"concurrency"`
		Env         map[string]string `yaml:"env"`
		Jobs        map[string]struct {
			RunsOn string `yaml:"runs-on"`
			Steps  []step `yaml:"steps"`
		} `yaml:"jobs"`
	}
	var w, release workflow
	dec := yamlv3.NewDecoder(bytes.NewReader(doc))
	dec.KnownFields(true)
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := yamlv3.Unmarshal([]byte(readFile(t, filepath.Join(repo, "examples", "github-actions", "render.yaml"))), &release); err != nil {
		t.Fatal(err)
	}
	if v := w.Env["OLM_RENDER_VERSION"]; v == "" || v != release.Env["OLM_RENDER_VERSION"] {
		t.Errorf("%s: OLM_RENDER_VERSION %q, want %q as examples/github-actions/render.yaml", path, v, release.Env["OLM_RENDER_VERSION"])
	}
	var runs []string
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			runs = append(runs, strings.Join(strings.Fields(strings.ReplaceAll(s.Run, "\\\n", " ")), " "))
		}
	}
	all := strings.Join(runs, "\n")
	if setting := regexp.MustCompile(`olm-render [a-z]+ .*(--olm|--global-catalog-namespace|--cert-provider|--kube-version)`).FindString(all); setting != "" {
		t.Errorf("%s: %q repeats a setting of the project file", path, setting)
	}
	if filepath.Base(path) != "render.yaml" {
		return
	}
	if w.Permissions["contents"] != "write" {
		t.Errorf("%s: permissions.contents %q, want write (the workflow commits rendered/)", path, w.Permissions["contents"])
	}
	if !strings.Contains(all, "olm-render render --locked --output-dir rendered/ inputs/") {
		t.Errorf("%s: no step renders inputs/ into rendered/ with --locked", path)
	}
	if !strings.Contains(all, "git add --all rendered/") || !strings.Contains(all, "git push") {
		t.Errorf("%s: no step commits and pushes rendered/", path)
	}
}

// TestOpenShiftInputsRender renders the OpenShift example's inputs for --olm=running against a
// snapshot of the community catalog (the corpus's, for OpenShift 4.16, which holds the
// manifests), the CatalogSource's tag replaced by a digest as olm-render lock would pin it, and
// runs the health checks on what the render applies, as the API server first holds it.
func TestOpenShiftInputsRender(t *testing.T) {
	snapshot := filepath.Join(fixture.Corpus(t), "fbc", "community-operators-prod", "catalogs", "v4.16", "kube-green")
	bin := buildBinary(t)
	top := t.TempDir()
	in := filepath.Join(top, "examples", "openshift", "inputs")
	if err := os.CopyFS(in, os.DirFS(filepath.Join(openshiftDir, "inputs"))); err != nil {
		t.Fatal(err)
	}
	catalogSource := filepath.Join(in, "catalogsource.yaml")
	pinned := regexp.MustCompile(`(community-operator-index):v4\.\d+`).ReplaceAllString(readFile(t, catalogSource), "$1@sha256:"+strings.Repeat("ab", 32))
	if err := os.WriteFile(catalogSource, []byte(pinned), 0o644); err != nil {
		t.Fatal(err)
	}
	// The files, not their kustomization: a kustomization passing through an object with an
	// integer (the approver's Deployment) makes the render panic for now ("cannot deep copy
	// int": schemas/inputs converts kustomize's build output with Go ints).
	var inputs []string
	for _, name := range []string{"namespace.yaml", "operatorgroup.yaml", "subscription.yaml", "catalogsource.yaml"} {
		inputs = append(inputs, filepath.Join(in, name))
	}
	out := filepath.Join(t.TempDir(), "rendered")
	args := append([]string{"render", "--olm=running", "--no-lock", "--root", top,
		"--global-catalog-namespace", "openshift-marketplace",
		"--catalog", "openshift-marketplace/community-operators-pinned=" + snapshot, "--output-dir", out}, inputs...)
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("olm-render render: %v\n%s", err, b)
	}
	var k types.Kustomization
	readYAMLFile(t, filepath.Join(out, "kustomization.yaml"), &k)
	applied := map[string]bool{}
	for _, r := range k.Resources {
		applied[filepath.ToSlash(r)] = true
	}
	want := []string{
		"_cluster/namespace-kube-green.yaml",
		"kube-green/configmap-olm-render-approval.yaml",
		"kube-green/operatorgroup-kube-green.yaml",
		"kube-green/subscription-kube-green.yaml",
		"openshift-marketplace/catalogsource-community-operators-pinned.yaml",
	}
	for _, w := range want {
		if !applied[w] {
			t.Errorf("rendered/kustomization.yaml lists %v, not %s", k.Resources, w)
		}
	}
	if len(applied) != len(want) {
		t.Errorf("rendered/kustomization.yaml lists %v, want only %v: the rest is OLM's", k.Resources, want)
	}
	if _, err := os.Stat(filepath.Join(out, "prediction")); err != nil {
		t.Errorf("no prediction beside the applied objects: %v", err)
	}

	var sub map[string]any
	readYAMLFile(t, filepath.Join(out, "kube-green", "subscription-kube-green.yaml"), &sub)
	spec := sub["spec"].(map[string]any)
	locked, _ := spec["startingCSV"].(string)
	if spec["installPlanApproval"] != "Manual" || !strings.HasPrefix(locked, "kube-green.v") {
		t.Fatalf("rendered Subscription spec %v: want Manual at a locked kube-green CSV", spec)
	}
	subExprs := fluxExprs(t, targetRunning, "operators.coreos.com/v1alpha1", "Subscription")
	subScript := argoScript(t, "subscription.lua")
	if status, _ := argoHealth(t, subScript, sub); status != "Progressing" {
		t.Errorf("Argo CD health of the Subscription as applied = %s, want Progressing", status)
	}
	atLock := subscriptionStatus(sub, locked, locked)
	if status, message := argoHealth(t, subScript, atLock); status != "Healthy" {
		t.Errorf("Argo CD health of the Subscription at its lock = %s %q, want Healthy", status, message)
	}
	if got := fluxOutcome(t, subExprs, atLock); got != fluxCurrent {
		t.Errorf("Flux outcome of the Subscription at its lock = %s, want current", got)
	}

	var cm map[string]any
	readYAMLFile(t, filepath.Join(out, "kube-green", "configmap-olm-render-approval.yaml"), &cm)
	if status, message := argoHealth(t, argoScript(t, "configmap.lua"), cm); status != "Progressing" || message != "waiting for olm-render approve to report" {
		t.Errorf("Argo CD health of the rendered contract = %s %q, want Progressing until the approver reports", status, message)
	}
	if got := fluxOutcome(t, fluxExprs(t, targetRunning, "v1", "ConfigMap"), cm); got != fluxInProgress {
		t.Errorf("Flux outcome of the rendered contract = %s, want inProgress", got)
	}
}

package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/test/healthcheck"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// The health checks that examples/argocd and examples/flux ship.
var (
	argoHealthDir   = filepath.Join(repo, "examples", "argocd", "health")
	argoCMPatch     = filepath.Join(argoHealthDir, "argocd-cm-patch.yaml")
	fluxHealthExprs = filepath.Join(repo, "examples", "flux", "health-check-exprs.yaml")
)

// argoHealthScripts maps each argocd-cm key Argo CD reads a custom health check from to the
// script of examples/argocd/health it holds.
var argoHealthScripts = map[string]string{
	"resource.customizations.health.operators.coreos.com_ClusterServiceVersion": "clusterserviceversion.lua",
	"resource.customizations.health.operators.coreos.com_Subscription":          "subscription.lua",
	"resource.customizations.health.ConfigMap":                                  "configmap.lua",
}

// argoScript returns the health script of examples/argocd/health named file.
func argoScript(t *testing.T, file string) string {
	t.Helper()
	return readFile(t, filepath.Join(argoHealthDir, file))
}

// noStatusMessage is the Argo CD message for a CSV that no olm-operator wrote a status for.
const noStatusMessage = "no status: OLM does not manage this CSV; health comes from its Deployments"

// csvFinalizer is the finalizer olm-operator adds to a CSV on its first sync.
const csvFinalizer = "operators.coreos.com/csv-cleanup"

// Flux outcomes of an object: the name of the one expression that is true, or fluxError when
// the expressions cannot be evaluated (Flux then reports the object's status as Unknown, and a
// wait goes on).
const (
	fluxCurrent    = "current"
	fluxFailed     = "failed"
	fluxInProgress = "inProgress"
	fluxError      = "error"
)

// TestHealthClusterServiceVersion runs the Argo CD Lua health check and the Flux CEL health
// check expressions (--olm=absent) on one CSV per OLM phase, and on the CSVs OLM writes no
// phase for.
func TestHealthClusterServiceVersion(t *testing.T) {
	script := argoScript(t, "clusterserviceversion.lua")
	exprs := fluxExprs(t, targetAbsent, "operators.coreos.com/v1alpha1", "ClusterServiceVersion")
	for _, tc := range []struct {
		name        string
		csv         map[string]any
		argoStatus  string
		argoMessage string
		flux        string
	}{{
		name:        "pending",
		csv:         csvWithStatus("Pending", "RequirementsUnknown", "requirements not yet checked"),
		argoStatus:  "Progressing",
		argoMessage: "Pending: RequirementsUnknown: requirements not yet checked",
		flux:        fluxInProgress,
	}, {
		name:        "install ready",
		csv:         csvWithStatus("InstallReady", "AllRequirementsMet", "all requirements found, attempting install"),
		argoStatus:  "Progressing",
		argoMessage: "InstallReady: AllRequirementsMet: all requirements found, attempting install",
		flux:        fluxInProgress,
	}, {
		name:        "installing",
		csv:         csvWithStatus("Installing", "InstallWaiting", "installing: waiting for deployment widget-operator to become ready"),
		argoStatus:  "Progressing",
		argoMessage: "Installing: InstallWaiting: installing: waiting for deployment widget-operator to become ready",
		flux:        fluxInProgress,
	}, {
		name:        "replacing",
		csv:         csvWithStatus("Replacing", "BeingReplaced", "being replaced by csv: widget-operator.v0.3.0"),
		argoStatus:  "Progressing",
		argoMessage: "Replacing: BeingReplaced: being replaced by csv: widget-operator.v0.3.0",
		flux:        fluxInProgress,
	}, {
		name:        "deleting",
		csv:         csvWithStatus("Deleting", "Replaced", "has been replaced by a newer ClusterServiceVersion that has successfully installed."),
		argoStatus:  "Progressing",
		argoMessage: "Deleting: Replaced: has been replaced by a newer ClusterServiceVersion that has successfully installed.",
		flux:        fluxInProgress,
	}, {
		name:        "unknown",
		csv:         csvWithStatus("Unknown", "", ""),
		argoStatus:  "Progressing",
		argoMessage: "Unknown",
		flux:        fluxInProgress,
	}, {
		name:        "phase OLM does not define",
		csv:         csvWithStatus("Upgrading", "Whatever", "from a newer OLM"),
		argoStatus:  "Progressing",
		argoMessage: "unknown phase Upgrading: Whatever: from a newer OLM",
		flux:        fluxInProgress,
	}, {
		name:        "succeeded",
		csv:         csvWithStatus("Succeeded", "InstallSucceeded", "install strategy completed with no errors"),
		argoStatus:  "Healthy",
		argoMessage: "InstallSucceeded: install strategy completed with no errors",
		flux:        fluxCurrent,
	}, {
		// A copy carries its parent's status and no finalizer: olm-operator's main informer
		// skips copies.
		name:        "copied",
		csv:         unclaimed(csvWithStatus("Succeeded", "Copied", "The operator is running in operators but is managing this namespace")),
		argoStatus:  "Healthy",
		argoMessage: "Copied: The operator is running in operators but is managing this namespace",
		flux:        fluxCurrent,
	}, {
		name:        "failed with a message",
		csv:         csvWithStatus("Failed", "InstallCheckFailed", "install timeout"),
		argoStatus:  "Degraded",
		argoMessage: "InstallCheckFailed: install timeout",
		flux:        fluxFailed,
	}, {
		name:        "failed with a message only",
		csv:         csvWithStatus("Failed", "", "install strategy failed"),
		argoStatus:  "Degraded",
		argoMessage: "install strategy failed",
		flux:        fluxFailed,
	}, {
		name:        "failed without reason or message",
		csv:         csvWithStatus("Failed", "", ""),
		argoStatus:  "Degraded",
		argoMessage: "Failed",
		flux:        fluxFailed,
	}, {
		// What a cluster without olm-operator holds (--olm=absent): the API server drops a
		// CSV's status on create, and nobody writes one or adds the finalizer. Flux binds no
		// status variable then; the expressions decide on metadata alone.
		name:        "no status",
		csv:         csv(),
		argoStatus:  "Healthy",
		argoMessage: noStatusMessage,
		flux:        fluxCurrent,
	}, {
		name:        "status without a phase",
		csv:         withField(csv(), "status", map[string]any{"cleanup": map[string]any{}}),
		argoStatus:  "Healthy",
		argoMessage: noStatusMessage,
		flux:        fluxCurrent,
	}, {
		// The moment between olm-operator's first sync (the finalizer) and its first status
		// write: Flux cannot evaluate the expressions (Unknown), and keeps waiting.
		name:        "claimed by olm-operator, no status yet",
		csv:         claimed(csv()),
		argoStatus:  "Progressing",
		argoMessage: "olm-operator synced it and has not written a phase yet",
		flux:        fluxError,
	}, {
		name:        "claimed by olm-operator, status without a phase",
		csv:         claimed(withField(csv(), "status", map[string]any{"cleanup": map[string]any{}})),
		argoStatus:  "Progressing",
		argoMessage: "olm-operator synced it and has not written a phase yet",
		flux:        fluxInProgress,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			status, message := argoHealth(t, script, tc.csv)
			if status != tc.argoStatus || message != tc.argoMessage {
				t.Errorf("Argo CD health = %s %q, want %s %q", status, message, tc.argoStatus, tc.argoMessage)
			}
			if got := fluxOutcome(t, exprs, tc.csv); got != tc.flux {
				t.Errorf("Flux outcome = %s, want %s", got, tc.flux)
			}
		})
	}
}

// TestHealthFluxKstatusWithoutExprs checks what the --olm=absent fragment leaves to Flux's
// kstatus: a CSV or a Subscription (--keep-intent) without status counts as current, so
// objects no controller writes a status for never hold the wait.
func TestHealthFluxKstatusWithoutExprs(t *testing.T) {
	for name, obj := range map[string]map[string]any{
		"csv":          csv(),
		"subscription": pinnedSubscription(),
	} {
		res, err := kstatus.Compute(&unstructured.Unstructured{Object: obj})
		if err != nil {
			t.Fatalf("%s: kstatus: %v", name, err)
		}
		if res.Status != kstatus.CurrentStatus {
			t.Errorf("kstatus status of a %s without status = %s (%s), want %s", name, res.Status, res.Message, kstatus.CurrentStatus)
		}
	}
}

// TestHealthArgoCDPatchMatchesScripts checks that argocd-cm-patch.yaml parses as the argocd-cm
// ConfigMap and holds each health script of examples/argocd/health byte for byte, under its key,
// and nothing else.
func TestHealthArgoCDPatchMatchesScripts(t *testing.T) {
	var cm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	}
	if err := yaml.UnmarshalStrict([]byte(readFile(t, argoCMPatch)), &cm); err != nil {
		t.Fatalf("%s: %v", argoCMPatch, err)
	}
	if cm.APIVersion != "v1" || cm.Kind != "ConfigMap" || cm.Metadata.Name != "argocd-cm" || cm.Metadata.Namespace != "argocd" {
		t.Errorf("%s is %s %s %s/%s, want v1 ConfigMap argocd/argocd-cm", argoCMPatch, cm.APIVersion, cm.Kind, cm.Metadata.Namespace, cm.Metadata.Name)
	}
	for key, file := range argoHealthScripts {
		inline, ok := cm.Data[key]
		if !ok {
			t.Errorf("%s has no data key %s", argoCMPatch, key)
			continue
		}
		if inline != argoScript(t, file) {
			t.Errorf("the script under %s in %s differs from %s; copy it over again, indented by 4 spaces", key, argoCMPatch, file)
		}
	}
	for key := range cm.Data {
		if _, ok := argoHealthScripts[key]; !ok {
			t.Errorf("%s: data key %s holds no script of %s", argoCMPatch, key, argoHealthDir)
		}
	}
}

// TestHealthFluxExprsParse checks that health-check-exprs.yaml holds the two fragments, each a
// Flux Kustomization that waits, the --olm=absent one judging CSVs, the --olm=running one
// Subscriptions and ConfigMaps, and that every expression compiles to a bool when the kind's
// top-level fields are declared (a stricter check than Flux's own, which only parses them).
func TestHealthFluxExprsParse(t *testing.T) {
	fields := map[string][]string{
		"ClusterServiceVersion": {"apiVersion", "kind", "metadata", "spec", "status"},
		"Subscription":          {"apiVersion", "kind", "metadata", "spec", "status"},
		"ConfigMap":             {"apiVersion", "kind", "metadata", "data", "binaryData", "immutable"},
	}
	want := map[fluxTarget][]string{
		targetAbsent:  {"operators.coreos.com/v1alpha1 ClusterServiceVersion"},
		targetRunning: {"operators.coreos.com/v1alpha1 Subscription", "v1 ConfigMap"},
	}
	for target, k := range readFluxKustomizations(t) {
		if k.APIVersion != "kustomize.toolkit.fluxcd.io/v1" || k.Kind != "Kustomization" {
			t.Errorf("%s: %s is %s %s, want kustomize.toolkit.fluxcd.io/v1 Kustomization", fluxHealthExprs, target, k.APIVersion, k.Kind)
		}
		if !k.Spec.Wait {
			t.Errorf("%s: %s: spec.wait is not true; Flux runs no health checks without it", fluxHealthExprs, target)
		}
		var kinds []string
		for _, hc := range k.Spec.HealthCheckExprs {
			kinds = append(kinds, hc.APIVersion+" "+hc.Kind)
			env := fluxEnv(t, declaredVariables(fields[hc.Kind])...)
			for name, expr := range map[string]string{fluxInProgress: hc.InProgress, fluxFailed: hc.Failed, fluxCurrent: hc.Current} {
				ast, iss := env.Compile(expr)
				if iss.Err() != nil {
					t.Errorf("%s: %s: %s %s: %v", fluxHealthExprs, target, hc.Kind, name, iss.Err())
					continue
				}
				if !ast.OutputType().IsExactType(cel.BoolType) {
					t.Errorf("%s: %s: %s %s has type %s, want bool", fluxHealthExprs, target, hc.Kind, name, ast.OutputType())
				}
			}
		}
		if !slices.Equal(kinds, want[target]) {
			t.Errorf("%s: %s judges %v, want %v", fluxHealthExprs, target, kinds, want[target])
		}
	}
}

// csv returns a ClusterServiceVersion as olm-render renders it and the API server stores it:
// without status.
func csv() map[string]any {
	return map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1",
		"kind":       "ClusterServiceVersion",
		"metadata": map[string]any{
			"name":       "widget-operator.v0.2.0",
			"namespace":  "operators",
			"generation": int64(1),
			"labels":     map[string]any{"olm.managed": "true"},
		},
		"spec": map[string]any{
			"displayName": "Widget Operator",
			"version":     "0.2.0",
			"replaces":    "widget-operator.v0.1.0",
			"install": map[string]any{
				"strategy": "deployment",
				"spec": map[string]any{
					"deployments": []any{map[string]any{"name": "widget-operator"}},
				},
			},
		},
	}
}

// csvWithStatus returns csv() with the status olm-operator writes in phase, with an empty
// reason or message left out as OLM's omitempty fields are, and the finalizer olm-operator
// added before it wrote any status.
func csvWithStatus(phase, reason, message string) map[string]any {
	status := map[string]any{"phase": phase}
	condition := map[string]any{"phase": phase, "lastTransitionTime": "2026-01-02T03:04:05Z"}
	if reason != "" {
		status["reason"] = reason
		condition["reason"] = reason
	}
	if message != "" {
		status["message"] = message
		condition["message"] = message
	}
	status["conditions"] = []any{condition}
	status["requirementStatus"] = []any{map[string]any{
		"group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition", "name": "widgets.example.com",
		"status": "Present", "version": "v1",
	}}
	return claimed(withField(csv(), "status", status))
}

// claimed returns a CSV as olm-operator leaves it on its first sync: with its finalizer.
func claimed(csv map[string]any) map[string]any {
	csv["metadata"].(map[string]any)["finalizers"] = []any{csvFinalizer}
	return csv
}

// unclaimed returns a CSV without olm-operator's finalizer.
func unclaimed(csv map[string]any) map[string]any {
	delete(csv["metadata"].(map[string]any), "finalizers")
	return csv
}

// withField sets obj[key] to value and returns obj.
func withField(obj map[string]any, key string, value any) map[string]any {
	obj[key] = value
	return obj
}

// readFile returns the content of path, failing the test when it cannot be read.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// argoHealth runs a health script on obj as Argo CD does (healthcheck.Argo), failing the test
// on an error or a status Argo CD would not accept.
func argoHealth(t *testing.T, script string, obj map[string]any) (status, message string) {
	t.Helper()
	status, message, err := healthcheck.Argo(script, obj)
	if err != nil {
		t.Fatal(err)
	}
	return status, message
}

// jsonObject returns obj as it reads after a JSON round trip (healthcheck.JSONObject).
func jsonObject(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	out, err := healthcheck.JSONObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fluxTarget names a fragment of health-check-exprs.yaml by the olm-render target it is for.
type fluxTarget string

// The fragments of health-check-exprs.yaml, in the file's order.
const (
	targetAbsent  fluxTarget = "--olm=absent"
	targetRunning fluxTarget = "--olm=running"
)

// fluxHealthCheck is one healthCheckExprs entry of a Flux Kustomization.
type fluxHealthCheck struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Current    string `json:"current"`
	Failed     string `json:"failed"`
	InProgress string `json:"inProgress"`
}

// fluxKustomization is the part of a Flux Kustomization that health-check-exprs.yaml sets.
type fluxKustomization struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		Wait             bool              `json:"wait"`
		HealthCheckExprs []fluxHealthCheck `json:"healthCheckExprs"`
	} `json:"spec"`
}

// readFluxKustomizations parses the two fragments of health-check-exprs.yaml, rejecting
// unknown fields.
func readFluxKustomizations(t *testing.T) map[fluxTarget]fluxKustomization {
	t.Helper()
	docs := yamlDocuments(t, fluxHealthExprs)
	targets := []fluxTarget{targetAbsent, targetRunning}
	if len(docs) != len(targets) {
		t.Fatalf("%s holds %d documents, want %d: the fragments for %v", fluxHealthExprs, len(docs), len(targets), targets)
	}
	out := map[fluxTarget]fluxKustomization{}
	for i, target := range targets {
		var k fluxKustomization
		if err := yaml.UnmarshalStrict(docs[i], &k); err != nil {
			t.Fatalf("%s: %s fragment: %v", fluxHealthExprs, target, err)
		}
		out[target] = k
	}
	return out
}

// fluxExprs returns the current, failed and inProgress expressions, by those names, of the one
// healthCheckExprs entry for a kind in the fragment for target.
func fluxExprs(t *testing.T, target fluxTarget, apiVersion, kind string) map[string]string {
	t.Helper()
	var exprs map[string]string
	for _, hc := range readFluxKustomizations(t)[target].Spec.HealthCheckExprs {
		if hc.APIVersion != apiVersion || hc.Kind != kind {
			continue
		}
		if exprs != nil {
			t.Fatalf("%s: %s: two health checks for %s (Flux uses the first only)", fluxHealthExprs, target, kind)
		}
		exprs = map[string]string{fluxCurrent: hc.Current, fluxFailed: hc.Failed, fluxInProgress: hc.InProgress}
	}
	if exprs == nil {
		t.Fatalf("%s: %s: no health check for %s %s", fluxHealthExprs, target, apiVersion, kind)
	}
	for name, expr := range exprs {
		if expr == "" {
			t.Fatalf("%s: %s: the %s health check has no %s expression", fluxHealthExprs, target, kind, name)
		}
	}
	return exprs
}

// yamlDocuments returns the documents of a YAML file.
func yamlDocuments(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

// stripComments returns a YAML document without its comment-only lines.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
		}
	}
	return out
}

// fluxEnv returns a CEL environment as Flux's (healthcheck.FluxEnv), plus opts.
func fluxEnv(t *testing.T, opts ...cel.EnvOption) *cel.Env {
	t.Helper()
	env, err := healthcheck.FluxEnv(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// declaredVariables declares the named top-level fields of a Kubernetes object as dyn
// variables.
func declaredVariables(names []string) []cel.EnvOption {
	var opts []cel.EnvOption
	for _, name := range names {
		opts = append(opts, cel.Variable(name, cel.DynType))
	}
	return opts
}

// fluxOutcome evaluates the three expressions on obj as Flux does (healthcheck.Flux) and
// returns the true one, or fluxError when they cannot be evaluated for want of a status.
func fluxOutcome(t *testing.T, exprs map[string]string, obj map[string]any) string {
	t.Helper()
	out, err := healthcheck.Flux(exprs, obj)
	if err != nil {
		t.Error(err)
	}
	if out == healthcheck.FluxUnknown {
		return fluxError
	}
	return out
}

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The health checks for ClusterServiceVersions that examples/argocd and examples/flux ship.
var (
	argoHealthScript = filepath.Join(repo, "examples", "argocd", "health", "clusterserviceversion.lua")
	argoCMPatch      = filepath.Join(repo, "examples", "argocd", "health", "argocd-cm-patch.yaml")
	fluxHealthExprs  = filepath.Join(repo, "examples", "flux", "health-check-exprs.yaml")
)

// argoHealthKey is the argocd-cm key Argo CD reads a custom health check for the
// operators.coreos.com ClusterServiceVersion kind from.
const argoHealthKey = "resource.customizations.health.operators.coreos.com_ClusterServiceVersion"

// noStatusMessage is the Argo CD message for a CSV that no olm-operator wrote a status for.
const noStatusMessage = "no status: OLM does not manage this CSV; health comes from its Deployments"

// Flux outcomes of a CSV: the name of the one expression that is true, or fluxError when the
// expressions cannot be evaluated (Flux then reports the CSV's status as Unknown).
const (
	fluxCurrent    = "current"
	fluxFailed     = "failed"
	fluxInProgress = "inProgress"
	fluxError      = "error"
)

// TestHealthClusterServiceVersion runs the Argo CD Lua health check and the Flux CEL health
// check expressions on one CSV per OLM phase, and on the CSVs OLM writes no phase for.
func TestHealthClusterServiceVersion(t *testing.T) {
	script := readFile(t, argoHealthScript)
	exprs := fluxCSVExprs(t)
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
		name:        "copied",
		csv:         csvWithStatus("Succeeded", "Copied", "The operator is running in operators but is managing this namespace"),
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
		// What a cluster without olm-operator holds: the API server drops a CSV's status on
		// create, and nobody writes one. Flux binds no `status` variable then, so the
		// expressions cannot be evaluated (see TestHealthFluxNoStatusWithoutExprs).
		name:        "no status",
		csv:         csv(),
		argoStatus:  "Healthy",
		argoMessage: noStatusMessage,
		flux:        fluxError,
	}, {
		name:        "status without a phase",
		csv:         withField(csv(), "status", map[string]any{"cleanup": map[string]any{}}),
		argoStatus:  "Healthy",
		argoMessage: noStatusMessage,
		flux:        fluxCurrent,
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

// TestHealthFluxNoStatusWithoutExprs checks what examples/flux/README.md advises for clusters
// without olm-operator: with no healthCheckExprs entry for CSVs, Flux's kstatus reader counts a
// CSV without status as current, so only the other objects (the Deployments) gate the wait.
func TestHealthFluxNoStatusWithoutExprs(t *testing.T) {
	res, err := kstatus.Compute(&unstructured.Unstructured{Object: csv()})
	if err != nil {
		t.Fatalf("kstatus: %v", err)
	}
	if res.Status != kstatus.CurrentStatus {
		t.Errorf("kstatus status of a CSV without status = %s (%s), want %s", res.Status, res.Message, kstatus.CurrentStatus)
	}
}

// TestHealthArgoCDPatchMatchesScript checks that argocd-cm-patch.yaml parses as the argocd-cm
// ConfigMap and holds clusterserviceversion.lua byte for byte.
func TestHealthArgoCDPatchMatchesScript(t *testing.T) {
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
	inline, ok := cm.Data[argoHealthKey]
	if !ok {
		t.Fatalf("%s has no data key %s", argoCMPatch, argoHealthKey)
	}
	if script := readFile(t, argoHealthScript); inline != script {
		t.Errorf("the script inline in %s differs from %s; copy it over again, indented by 4 spaces", argoCMPatch, argoHealthScript)
	}
}

// TestHealthFluxExprsParse checks that health-check-exprs.yaml parses as a Flux Kustomization
// that waits, with one CSV health check whose three expressions compile when the object's
// top-level fields are declared (a stricter check than Flux's own, which only parses them).
func TestHealthFluxExprsParse(t *testing.T) {
	k := readFluxKustomization(t)
	if k.APIVersion != "kustomize.toolkit.fluxcd.io/v1" || k.Kind != "Kustomization" {
		t.Errorf("%s is %s %s, want kustomize.toolkit.fluxcd.io/v1 Kustomization", fluxHealthExprs, k.APIVersion, k.Kind)
	}
	if !k.Spec.Wait {
		t.Errorf("%s: spec.wait is not true; Flux runs no health checks without it", fluxHealthExprs)
	}
	exprs := fluxCSVExprs(t)
	env := fluxEnv(t, declaredTopLevelFields()...)
	for _, name := range []string{fluxInProgress, fluxFailed, fluxCurrent} {
		ast, iss := env.Compile(exprs[name])
		if iss.Err() != nil {
			t.Errorf("%s: %s: %v", fluxHealthExprs, name, iss.Err())
			continue
		}
		if !ast.OutputType().IsExactType(cel.BoolType) {
			t.Errorf("%s: %s has type %s, want bool", fluxHealthExprs, name, ast.OutputType())
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
// reason or message left out as OLM's omitempty fields are.
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
	return withField(csv(), "status", status)
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

// argoHealth runs a health script on obj as Argo CD's util/lua VM does: only the base, table and
// package libraries, the object converted to Lua values as global obj, a one-second budget.
// It returns the hs.status and hs.message the script returns, and fails the test on any status
// Argo CD would not accept.
func argoHealth(t *testing.T, script string, obj map[string]any) (status, message string) {
	t.Helper()
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for name, open := range map[string]lua.LGFunction{
		lua.LoadLibName: lua.OpenPackage,
		lua.BaseLibName: lua.OpenBase,
		lua.TabLibName:  lua.OpenTable,
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(open), Protect: true}, lua.LString(name)); err != nil {
			t.Fatalf("opening Lua library %q: %v", name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", luaValue(l, jsonObject(t, obj)))
	if err := l.DoString(script); err != nil {
		t.Fatalf("health script: %v", err)
	}
	hs, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("health script returned %s, want a table", l.Get(-1).Type())
	}
	status, message = luaString(t, hs, "status"), luaString(t, hs, "message")
	switch status {
	case "Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown":
	default:
		t.Errorf("health script returned status %q, which Argo CD replaces with Unknown", status)
	}
	return status, message
}

// jsonObject returns obj as it reads after a JSON round trip, the form Argo CD and Flux get
// objects from the API server in (numbers become float64).
func jsonObject(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// luaValue converts a JSON-like Go value to Lua as Argo CD's decodeValue does: maps become
// hash tables, slices become arrays, null and unknown types become nil.
func luaValue(l *lua.LState, value any) lua.LValue {
	switch v := value.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []any:
		arr := l.CreateTable(len(v), 0)
		for _, item := range v {
			arr.Append(luaValue(l, item))
		}
		return arr
	case map[string]any:
		tbl := l.CreateTable(0, len(v))
		for key, item := range v {
			tbl.RawSetH(lua.LString(key), luaValue(l, item))
		}
		return tbl
	}
	return lua.LNil
}

// luaString returns the string field key of tbl, failing the test when it is anything else.
func luaString(t *testing.T, tbl *lua.LTable, key string) string {
	t.Helper()
	s, ok := tbl.RawGetString(key).(lua.LString)
	if !ok {
		t.Fatalf("hs.%s is %s, want a string", key, tbl.RawGetString(key).Type())
	}
	return string(s)
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
		Wait             bool `json:"wait"`
		HealthCheckExprs []struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Current    string `json:"current"`
			Failed     string `json:"failed"`
			InProgress string `json:"inProgress"`
		} `json:"healthCheckExprs"`
	} `json:"spec"`
}

// readFluxKustomization parses health-check-exprs.yaml, rejecting unknown fields.
func readFluxKustomization(t *testing.T) fluxKustomization {
	t.Helper()
	var k fluxKustomization
	if err := yaml.UnmarshalStrict([]byte(readFile(t, fluxHealthExprs)), &k); err != nil {
		t.Fatalf("%s: %v", fluxHealthExprs, err)
	}
	return k
}

// fluxCSVExprs returns the current, failed and inProgress expressions of the one
// healthCheckExprs entry for ClusterServiceVersions, by those names.
func fluxCSVExprs(t *testing.T) map[string]string {
	t.Helper()
	var exprs map[string]string
	for _, hc := range readFluxKustomization(t).Spec.HealthCheckExprs {
		if hc.APIVersion != "operators.coreos.com/v1alpha1" || hc.Kind != "ClusterServiceVersion" {
			continue
		}
		if exprs != nil {
			t.Fatalf("%s: two health checks for ClusterServiceVersion (Flux rejects that)", fluxHealthExprs)
		}
		exprs = map[string]string{fluxCurrent: hc.Current, fluxFailed: hc.Failed, fluxInProgress: hc.InProgress}
	}
	if exprs == nil {
		t.Fatalf("%s: no health check for operators.coreos.com/v1alpha1 ClusterServiceVersion", fluxHealthExprs)
	}
	for name, expr := range exprs {
		if expr == "" {
			t.Fatalf("%s: the ClusterServiceVersion health check has no %s expression", fluxHealthExprs, name)
		}
	}
	return exprs
}

// fluxEnv returns a CEL environment with the options of fluxcd/pkg runtime/cel NewExpression,
// plus opts.
func fluxEnv(t *testing.T, opts ...cel.EnvOption) *cel.Env {
	t.Helper()
	env, err := cel.NewEnv(append([]cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(),
		ext.Sets(),
		ext.Encoders(),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// declaredTopLevelFields declares the five top-level fields of a Kubernetes object as dyn
// variables.
func declaredTopLevelFields() []cel.EnvOption {
	var opts []cel.EnvOption
	for _, name := range []string{"apiVersion", "kind", "metadata", "spec", "status"} {
		opts = append(opts, cel.Variable(name, cel.DynType))
	}
	return opts
}

// fluxOutcome evaluates the three expressions on obj as Flux's StatusEvaluator does: parsed,
// not compiled (Flux declares no variables, since not every kind has the five standard
// top-level fields), with the object's own top-level fields as the variables, so an object
// without status has no status variable. It checks that exactly one expression is true and
// returns its name, or fluxError when any expression fails to evaluate.
func fluxOutcome(t *testing.T, exprs map[string]string, obj map[string]any) string {
	t.Helper()
	env := fluxEnv(t)
	vars := jsonObject(t, obj)
	var trueOnes []string
	for _, name := range []string{fluxInProgress, fluxFailed, fluxCurrent} {
		ast, iss := env.Parse(exprs[name])
		if iss.Err() != nil {
			t.Fatalf("parsing %s %q: %v", name, exprs[name], iss.Err())
		}
		prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize), cel.InterruptCheckFrequency(100))
		if err != nil {
			t.Fatalf("program for %s %q: %v", name, exprs[name], err)
		}
		val, _, err := prg.ContextEval(context.Background(), vars)
		if err != nil {
			if !strings.Contains(err.Error(), "no such attribute(s): status") {
				t.Errorf("%s %q: unexpected error %v", name, exprs[name], err)
			}
			return fluxError
		}
		b, ok := val.(types.Bool)
		if !ok {
			t.Fatalf("%s %q = %v (%T), want a bool", name, exprs[name], val, val)
		}
		if b {
			trueOnes = append(trueOnes, name)
		}
	}
	if len(trueOnes) != 1 {
		t.Errorf("true expressions = %v, want exactly one of current, failed, inProgress", trueOnes)
		return strings.Join(trueOnes, "+")
	}
	return trueOnes[0]
}

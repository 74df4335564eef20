// Package healthcheck evaluates the health checks olm-render ships (examples/argocd/health, Lua;
// examples/flux/health-check-exprs.yaml, CEL) on objects as Argo CD and Flux evaluate them, for
// the tests that hold them against objects: synthetic ones (test/e2e) and those OLM writes on
// a real API server (test/oracle's live tests).
package healthcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	lua "github.com/yuin/gopher-lua"
	"sigs.k8s.io/yaml"
)

// Argo runs an Argo CD health script on obj as Argo CD's util/lua VM does: only the base,
// table and package libraries, the object converted to Lua values as global obj, a one-second
// budget. It returns the hs.status and hs.message the script returns.
func Argo(script string, obj map[string]any) (status, message string, err error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for name, open := range map[string]lua.LGFunction{
		lua.LoadLibName: lua.OpenPackage,
		lua.BaseLibName: lua.OpenBase,
		lua.TabLibName:  lua.OpenTable,
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(open), Protect: true}, lua.LString(name)); err != nil {
			return "", "", fmt.Errorf("opening Lua library %q: %w", name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	vars, err := JSONObject(obj)
	if err != nil {
		return "", "", err
	}
	l.SetGlobal("obj", luaValue(l, vars))
	if err := l.DoString(script); err != nil {
		return "", "", fmt.Errorf("health script: %w", err)
	}
	hs, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return "", "", fmt.Errorf("health script returned %s, want a table", l.Get(-1).Type())
	}
	st, ok1 := hs.RawGetString("status").(lua.LString)
	msg, ok2 := hs.RawGetString("message").(lua.LString)
	if !ok1 || !ok2 {
		return "", "", fmt.Errorf("health script returned status %s and message %s, want strings", hs.RawGetString("status").Type(), hs.RawGetString("message").Type())
	}
	switch string(st) {
	case "Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown":
	default:
		return "", "", fmt.Errorf("health script returned status %q, which Argo CD replaces with Unknown", st)
	}
	return string(st), string(msg), nil
}

// JSONObject returns obj as it reads after a JSON round trip, the form Argo CD and Flux get
// objects from the API server in (numbers become float64).
func JSONObject(obj map[string]any) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
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

// The outcomes of Flux's health check expressions: the name of the one that is true, or
// FluxUnknown when they cannot be evaluated (an object without status: Flux reports Unknown and
// keeps waiting).
const (
	FluxCurrent    = "current"
	FluxFailed     = "failed"
	FluxInProgress = "inProgress"
	FluxUnknown    = "unknown"
)

// FluxEnv returns a CEL environment with the options of fluxcd/pkg runtime/cel NewExpression,
// plus opts.
func FluxEnv(opts ...cel.EnvOption) (*cel.Env, error) {
	return cel.NewEnv(append([]cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(),
		ext.Sets(),
		ext.Encoders(),
	}, opts...)...)
}

// Flux evaluates the three expressions (by the names FluxCurrent, FluxFailed, FluxInProgress)
// on obj as Flux's StatusEvaluator does: parsed, not compiled, with the object's own top-level
// fields as the variables (an object without status has no status variable), in the order
// inProgress, failed, current. It returns the name of the one true expression, or FluxUnknown
// when evaluating fails because the object has no status; any other failure, or a number of
// true expressions other than one, is an error.
func Flux(exprs map[string]string, obj map[string]any) (string, error) {
	env, err := FluxEnv()
	if err != nil {
		return "", err
	}
	vars, err := JSONObject(obj)
	if err != nil {
		return "", err
	}
	var trueOnes []string
	for _, name := range []string{FluxInProgress, FluxFailed, FluxCurrent} {
		ast, iss := env.Parse(exprs[name])
		if iss.Err() != nil {
			return "", fmt.Errorf("parsing %s %q: %w", name, exprs[name], iss.Err())
		}
		prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize), cel.InterruptCheckFrequency(100))
		if err != nil {
			return "", fmt.Errorf("program for %s %q: %w", name, exprs[name], err)
		}
		val, _, err := prg.ContextEval(context.Background(), vars)
		if err != nil {
			if strings.Contains(err.Error(), "no such attribute(s): status") && obj["status"] == nil {
				return FluxUnknown, nil
			}
			return "", fmt.Errorf("%s %q: %w", name, exprs[name], err)
		}
		b, ok := val.(types.Bool)
		if !ok {
			return "", fmt.Errorf("%s %q = %v (%T), want a bool", name, exprs[name], val, val)
		}
		if b {
			trueOnes = append(trueOnes, name)
		}
	}
	if len(trueOnes) != 1 {
		return strings.Join(trueOnes, "+"), fmt.Errorf("true expressions = %v, want exactly one of current, failed, inProgress", trueOnes)
	}
	return trueOnes[0], nil
}

// FluxExprs returns the current, failed and inProgress expressions (by the names FluxCurrent,
// FluxFailed, FluxInProgress) of the healthCheckExprs entry for a kind in one fragment of a
// file of Flux Kustomization fragments (examples/flux/health-check-exprs.yaml: fragment 0 is
// --olm=absent's, 1 --olm=running's).
func FluxExprs(path string, fragment int, apiVersion, kind string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var docs [][]byte
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var k struct {
			Spec struct {
				HealthCheckExprs []struct {
					APIVersion string `json:"apiVersion"`
					Kind       string `json:"kind"`
					Current    string `json:"current"`
					Failed     string `json:"failed"`
					InProgress string `json:"inProgress"`
				} `json:"healthCheckExprs"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(doc, &k); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(k.Spec.HealthCheckExprs) == 0 {
			continue // the header's comments
		}
		docs = append(docs, doc)
		if len(docs)-1 != fragment {
			continue
		}
		for _, hc := range k.Spec.HealthCheckExprs {
			if hc.APIVersion == apiVersion && hc.Kind == kind {
				return map[string]string{FluxCurrent: hc.Current, FluxFailed: hc.Failed, FluxInProgress: hc.InProgress}, nil
			}
		}
		return nil, fmt.Errorf("%s: fragment %d has no health check for %s %s", path, fragment, apiVersion, kind)
	}
	return nil, fmt.Errorf("%s has no fragment %d", path, fragment)
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olm-render/olm-render/render/gitops"
)

// paramKind is how a plugin parameter's value is given in the Application.
type paramKind int

const (
	// stringParam is a string passed to its flag as given.
	stringParam paramKind = iota
	// boolParam is the string "true" or "false".
	boolParam
	// arrayParam is an array; each element is one occurrence of its flag.
	arrayParam
)

func (k paramKind) String() string {
	switch k {
	case boolParam:
		return `a boolean ("true" or "false")`
	case arrayParam:
		return "an array"
	default:
		return "a string"
	}
}

// pluginParam is one parameter of the Argo CD plugin.
type pluginParam struct {
	name  string // as in the Application's spec.source.plugin.parameters and plugin.yaml
	flag  string // the render flag it sets; empty for the plugin's own path and locked
	kind  paramKind
	def   string // the default plugin.yaml announces; empty for arrays
	usage string
	alias bool // accepted for compatibility, not announced in plugin.yaml
}

// Parameters the plugin defines itself rather than taking from a render flag.
const (
	pathParam   = "path"
	lockedParam = "locked"
)

// excludedRenderFlags are the render flags the plugin does not expose, each with the reason.
func excludedRenderFlags() map[string]string {
	const sidecar = "a setting of the sidecar, not of an Application: set it on the sidecar container " +
		"($OLM_RENDER_CACHE, $REGISTRY_AUTH_FILE, $CONTAINERS_REGISTRIES_CONF)"
	return map[string]string{
		"output":          "Argo CD reads the objects from stdout, as YAML",
		"output-dir":      "Argo CD reads the objects from stdout",
		"root":            "set by the plugin to the top of the checkout",
		"lock":            "the lock is the committed one beside the inputs; another path could leave the checkout",
		"locked":          "the plugin's locked parameter, default true",
		"no-lock":         "locked=false",
		"cache-dir":       sidecar,
		"authfile":        sidecar,
		"registries-conf": sidecar,
		"summary":         "a line on stderr for a person at a terminal; Argo CD shows stderr only on failure",
		"flux-source":     "a setting of the Flux layout, which needs --output-dir",
		"flux-namespace":  "a setting of the Flux layout, which needs --output-dir",
		"help":            "not a render option",
	}
}

// envDefaults are the parameters Argo CD's build environment sets a default for, by parameter
// name: the variable to read. A parameter whose flag render lacks is skipped, so these apply
// only once render has the flag.
func envDefaults() map[string]string {
	return map[string]string{"kube-version": "KUBE_VERSION"}
}

// pluginDefaults are the parameters whose default under Argo CD differs from render's: the
// render is prepared for Argo CD (sync waves, sync options).
func pluginDefaults() map[string]string {
	return map[string]string{"for": string(gitops.ArgoCD)}
}

// pluginParams derives the plugin's parameters from the render command's flags, sorted by name:
// every flag not excluded, plus path, locked and the catalogs alias of catalog.
func pluginParams() []pluginParam {
	params := []pluginParam{
		{name: pathParam, kind: stringParam, def: ".", usage: "input directory, relative to the source path"},
		{name: lockedParam, kind: boolParam, def: "true",
			usage: "require the committed lock file, current (true: --locked; false: --no-lock, no lock read)"},
	}
	excluded := excludedRenderFlags()
	newRenderCommand().Flags().VisitAll(func(f *pflag.Flag) {
		if _, skip := excluded[f.Name]; skip || f.Hidden || f.Deprecated != "" {
			return
		}
		p := pluginParam{name: f.Name, flag: f.Name, kind: kindOf(f), def: f.DefValue, usage: f.Usage}
		if def, ok := pluginDefaults()[f.Name]; ok {
			p.def = def
		}
		if p.kind == arrayParam {
			p.def = ""
		}
		params = append(params, p)
		if f.Name == "catalog" {
			params = append(params, pluginParam{name: "catalogs", flag: f.Name, kind: arrayParam,
				usage: "alias of catalog", alias: true})
		}
	})
	sort.Slice(params, func(i, j int) bool { return params[i].name < params[j].name })
	return params
}

// kindOf is the parameter kind of a flag: booleans and arrays by their pflag type, anything else
// (strings, numbers) a string render parses.
func kindOf(f *pflag.Flag) paramKind {
	switch f.Value.Type() {
	case "bool":
		return boolParam
	case "stringArray", "stringSlice":
		return arrayParam
	default:
		return stringParam
	}
}

// envName is the environment form of a parameter name, as Argo CD makes PARAM_<NAME>: upper case,
// every character other than A-Z, 0-9 and '_' replaced by '_'.
func envName(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_' {
			return r
		}
		return '_'
	}, name)
}

// paramValue is the value given for a parameter: str for string and boolean parameters, array
// for array parameters.
type paramValue struct {
	str   string
	array []string
}

// paramValues are the given parameters by name.
type paramValues map[string]paramValue

// lookupParam finds a parameter by name.
func lookupParam(params []pluginParam, name string) (pluginParam, bool) {
	for _, p := range params {
		if p.name == name {
			return p, true
		}
	}
	return pluginParam{}, false
}

// lookupEnvParam finds a parameter by its environment form (see envName).
func lookupEnvParam(params []pluginParam, name string) (pluginParam, bool) {
	for _, p := range params {
		if envName(p.name) == name {
			return p, true
		}
	}
	return pluginParam{}, false
}

// unknownParam is the error for a parameter the plugin does not have.
func unknownParam(params []pluginParam, name, source string) error {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
	}
	return fmt.Errorf("unknown parameter %q (from %s); valid parameters: %s", name, source, strings.Join(names, ", "))
}

// wrongType is the error for a parameter given a value of another type.
func wrongType(p pluginParam, given, source string) error {
	return fmt.Errorf("parameter %q is %s, given %s (from %s)", p.name, p.kind, given, source)
}

// argoParameter is one element of ARGOCD_APP_PARAMETERS, as Argo CD marshals an
// ApplicationSourcePluginParameter: a name and any of string, array and map.
type argoParameter struct {
	Name   string             `json:"name"`
	String *string            `json:"string"`
	Array  *[]string          `json:"array"`
	Map    *map[string]string `json:"map"`
}

// jsonParams reads ARGOCD_APP_PARAMETERS, the JSON array of the Application's plugin parameters.
func jsonParams(params []pluginParam, raw string) (paramValues, error) {
	const source = "ARGOCD_APP_PARAMETERS"
	var given []argoParameter
	if err := json.Unmarshal([]byte(raw), &given); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", source, err)
	}
	vals := paramValues{}
	for _, g := range given {
		p, ok := lookupParam(params, g.Name)
		if !ok {
			return nil, unknownParam(params, g.Name, source)
		}
		if _, dup := vals[p.name]; dup {
			return nil, fmt.Errorf("parameter %q is given twice (from %s)", p.name, source)
		}
		v, ok, err := jsonValue(p, g)
		if err != nil {
			return nil, err
		}
		if ok {
			vals[p.name] = v
		}
	}
	return vals, nil
}

// jsonValue is the value of one ARGOCD_APP_PARAMETERS element for p; ok is false when the element
// carries no value of p's type (a bare name).
func jsonValue(p pluginParam, g argoParameter) (v paramValue, ok bool, err error) {
	const source = "ARGOCD_APP_PARAMETERS"
	switch {
	case g.Map != nil:
		return v, false, wrongType(p, "a map", source)
	case p.kind == arrayParam && g.String != nil:
		return v, false, wrongType(p, fmt.Sprintf("the string %q", *g.String), source)
	case p.kind != arrayParam && g.Array != nil:
		return v, false, wrongType(p, "an array", source)
	case g.Array != nil:
		return paramValue{array: *g.Array}, true, nil
	case g.String != nil:
		return paramValue{str: *g.String}, true, nil
	}
	return v, false, nil
}

// envParams reads the PARAM_<NAME> variables Argo CD derives from the parameters (for an array,
// PARAM_<NAME>_<i>). They are the fallback when ARGOCD_APP_PARAMETERS is not set.
func envParams(params []pluginParam, env map[string]string) (paramValues, error) {
	vals := paramValues{}
	elems := map[string]map[int]string{}
	for _, key := range sortedKeys(env) {
		rest, ok := strings.CutPrefix(key, "PARAM_")
		if !ok {
			continue
		}
		p, index, err := matchParamVar(params, rest, key)
		if err != nil {
			return nil, err
		}
		if p.kind != arrayParam {
			vals[p.name] = paramValue{str: env[key]}
			continue
		}
		if elems[p.name] == nil {
			elems[p.name] = map[int]string{}
		}
		elems[p.name][index] = env[key]
	}
	for name, byIndex := range elems {
		indices := make([]int, 0, len(byIndex))
		for i := range byIndex {
			indices = append(indices, i)
		}
		sort.Ints(indices)
		v := paramValue{}
		for _, i := range indices {
			v.array = append(v.array, byIndex[i])
		}
		vals[name] = v
	}
	return vals, nil
}

// matchParamVar finds the parameter of PARAM_<rest>: <NAME> of a string or boolean parameter, or
// <NAME>_<i> of an array parameter, with i the element's index.
func matchParamVar(params []pluginParam, rest, key string) (pluginParam, int, error) {
	if p, ok := lookupEnvParam(params, rest); ok {
		if p.kind == arrayParam {
			return p, 0, wrongType(p, "a string", key)
		}
		return p, 0, nil
	}
	for _, p := range params {
		suffix, ok := strings.CutPrefix(rest, envName(p.name)+"_")
		if i, err := strconv.Atoi(suffix); ok && p.kind == arrayParam && err == nil && i >= 0 {
			return p, i, nil
		}
	}
	for _, p := range params {
		if strings.HasPrefix(rest, envName(p.name)+"_") {
			return p, 0, wrongType(p, "an array or a map", key)
		}
	}
	return pluginParam{}, 0, unknownParam(params, strings.ToLower(strings.ReplaceAll(rest, "_", "-")), key)
}

// pluginEnvParams reads ARGOCD_ENV_OLM_RENDER_<NAME> (the Application's spec.source.plugin.env
// entry OLM_RENDER_<NAME>) for the parameters not given otherwise; an array is comma-separated.
func pluginEnvParams(params []pluginParam, env map[string]string, vals paramValues) error {
	const prefix = "ARGOCD_ENV_OLM_RENDER_"
	for _, key := range sortedKeys(env) {
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue
		}
		p, ok := lookupEnvParam(params, rest)
		if !ok {
			return unknownParam(params, strings.ToLower(strings.ReplaceAll(rest, "_", "-")), key)
		}
		if _, given := vals[p.name]; given {
			continue
		}
		if p.kind != arrayParam {
			vals[p.name] = paramValue{str: env[key]}
			continue
		}
		v := paramValue{}
		for _, s := range strings.Split(env[key], ",") {
			if s = strings.TrimSpace(s); s != "" {
				v.array = append(v.array, s)
			}
		}
		vals[p.name] = v
	}
	return nil
}

// givenParams reads the parameters: ARGOCD_APP_PARAMETERS when set, else PARAM_*; then
// ARGOCD_ENV_OLM_RENDER_* for those still missing.
func givenParams(params []pluginParam, env map[string]string) (paramValues, error) {
	var (
		vals paramValues
		err  error
	)
	if raw := strings.TrimSpace(env["ARGOCD_APP_PARAMETERS"]); raw != "" {
		vals, err = jsonParams(params, raw)
	} else {
		vals, err = envParams(params, env)
	}
	if err != nil {
		return nil, err
	}
	if err := pluginEnvParams(params, env, vals); err != nil {
		return nil, err
	}
	return vals, nil
}

// parseBool parses a boolean parameter strictly: "true" or "false".
func parseBool(name, value string) (bool, error) {
	switch value {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("parameter %q must be \"true\" or \"false\", not %q", name, value)
}

// checkoutRoot is the top of the repository checkout: Argo CD runs the plugin in the
// Application's source path inside the checkout, so wd with sourcePath's components removed.
// When sourcePath is empty, ".", not relative or not the end of wd, it is wd.
func checkoutRoot(wd, sourcePath string) string {
	rel := filepath.Clean(filepath.FromSlash(sourcePath))
	if rel == "." || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return wd
	}
	dir := filepath.Clean(wd)
	parts := strings.Split(rel, string(filepath.Separator))
	for i := len(parts) - 1; i >= 0; i-- {
		if filepath.Base(dir) != parts[i] || filepath.Dir(dir) == dir {
			return wd
		}
		dir = filepath.Dir(dir)
	}
	return dir
}

// generateArgs builds the render command line for the plugin's environment (os.Environ's form)
// and working directory.
func generateArgs(environ []string, wd string) ([]string, error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	params := pluginParams()
	vals, err := givenParams(params, env)
	if err != nil {
		return nil, err
	}
	args := []string{"render"}
	// Outside Argo CD (no ARGOCD_APP_SOURCE_PATH at all) render's own default root applies.
	if sourcePath, ok := env["ARGOCD_APP_SOURCE_PATH"]; ok {
		args = append(args, "--root="+checkoutRoot(wd, sourcePath))
	}
	for _, p := range params {
		flags, err := paramFlags(p, vals, env)
		if err != nil {
			return nil, err
		}
		args = append(args, flags...)
	}
	path := "."
	if v := vals[pathParam]; v.str != "" {
		path = v.str
	}
	return append(args, "--", path), nil
}

// paramFlags are the render flags for one parameter: nothing when it is not given (render's
// default, or its build environment default), an occurrence per array element.
func paramFlags(p pluginParam, vals paramValues, env map[string]string) ([]string, error) {
	v, given := vals[p.name]
	switch {
	case p.name == pathParam:
		return nil, nil
	case p.name == lockedParam:
		value := p.def
		if given && v.str != "" {
			value = v.str
		}
		locked, err := parseBool(p.name, value)
		if err != nil {
			return nil, err
		}
		if locked {
			return []string{"--locked"}, nil
		}
		return []string{"--no-lock"}, nil
	case p.kind == arrayParam:
		var flags []string
		for _, e := range v.array {
			flags = append(flags, "--"+p.flag+"="+e)
		}
		return flags, nil
	case p.kind == boolParam && given && v.str != "":
		b, err := parseBool(p.name, v.str)
		if err != nil {
			return nil, err
		}
		return []string{"--" + p.flag + "=" + strconv.FormatBool(b)}, nil
	case given && v.str != "":
		return []string{"--" + p.flag + "=" + v.str}, nil
	}
	if name, ok := envDefaults()[p.name]; ok && env[name] != "" {
		return []string{"--" + p.flag + "=" + env[name]}, nil
	}
	if def, ok := pluginDefaults()[p.name]; ok {
		return []string{"--" + p.flag + "=" + def}, nil
	}
	return nil, nil
}

// sortedKeys are m's keys, sorted.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// paramHelp lists the parameters for generate's help.
func paramHelp(params []pluginParam) string {
	var b strings.Builder
	for _, p := range params {
		def := ""
		if p.def != "" {
			def = fmt.Sprintf(" (default %q)", p.def)
		}
		kind := ""
		if p.kind == arrayParam {
			kind = " [array]"
		}
		fmt.Fprintf(&b, "  %s%s%s: %s\n", p.name, kind, def, p.usage)
	}
	return b.String()
}

// findSubscription returns the first file under dir, relative to it, that declares an OLM
// Subscription: a .yaml, .yml or .json file naming both operators.coreos.com and the kind
// Subscription. Symbolic links are not followed, .git is skipped, unreadable entries are skipped;
// "" means none.
func findSubscription(dir string) (string, error) {
	kind := regexp.MustCompile(`(?m)^[\s-]*kind:\s*["']?Subscription["']?\s*(#.*)?$|"kind"\s*:\s*"Subscription"`)
	const maxFile = 8 << 20
	var found string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if path == dir {
				return err
			}
			return nil
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case !d.Type().IsRegular():
			return nil
		}
		switch filepath.Ext(path) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		data, err := readPrefix(path, maxFile)
		if err != nil || !strings.Contains(string(data), "operators.coreos.com") || !kind.Match(data) {
			return nil
		}
		found, _ = filepath.Rel(dir, path)
		return fs.SkipAll
	})
	if err != nil {
		return "", fmt.Errorf("searching %s for Subscriptions: %w", dir, err)
	}
	return found, nil
}

// readPrefix reads at most n bytes of the file at path.
func readPrefix(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// newArgoCDCommand holds the Argo CD config management plugin's commands.
func newArgoCDCommand() *cobra.Command {
	argocd := &cobra.Command{Use: "argocd", Short: "Argo CD config management plugin commands"}
	argocd.AddCommand(newArgoCDGenerateCommand(), newArgoCDDiscoverCommand())
	return argocd
}

// newArgoCDGenerateCommand renders the Application's source directory and writes only objects to
// stdout; on any failure it writes nothing there and exits non-zero, so Argo CD never sees (and
// prunes to) an empty render.
func newArgoCDGenerateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "generate",
		Short: "Render the Application's source for Argo CD (parameters from ARGOCD_APP_PARAMETERS, PARAM_* and ARGOCD_ENV_OLM_RENDER_*)",
		Long: "generate renders the inputs under the path parameter, relative to the working directory (Argo CD\n" +
			"runs it in the Application's source path), reading nothing outside the checkout: --root is the\n" +
			"working directory without ARGOCD_APP_SOURCE_PATH's components. Parameters come from\n" +
			"ARGOCD_APP_PARAMETERS (else PARAM_<NAME>, PARAM_<NAME>_<i> for arrays), then from\n" +
			"ARGOCD_ENV_OLM_RENDER_<NAME> (arrays comma-separated); an unknown parameter is an error.\n" +
			"A string parameter given empty takes its default; kube-version defaults to $KUBE_VERSION.\n\n" +
			"Parameters (each a render flag of the same name, except path, locked and catalogs):\n" +
			paramHelp(pluginParams()),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("argocd generate: %w", err)
			}
			args, err := generateArgs(os.Environ(), wd)
			if err != nil {
				return fmt.Errorf("argocd generate: %w", err)
			}
			render := newRootCommand(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			render.SetArgs(args)
			// The parameters come from the Application, not from a person: every path stays
			// inside the checkout (paths.go).
			return render.ExecuteContext(withConfinedArgs(cmd.Context()))
		},
	}
}

// newArgoCDDiscoverCommand is the plugin's discover.find.command: it prints a file under the
// working directory (the Application's source path) that declares an OLM Subscription, or nothing.
// It needs no shell, so it runs in the distroless sidecar image.
func newArgoCDDiscoverCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "discover",
		Short: "Print a file under the working directory declaring an OLM Subscription (Argo CD plugin discovery)",
		Long: "discover prints the first .yaml, .yml or .json file under the working directory that names both\n" +
			"operators.coreos.com and kind Subscription, and nothing when there is none; Argo CD matches the\n" +
			"plugin when the output is not empty. It exits non-zero only when the directory is unreadable.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			found, err := findSubscription(".")
			if err != nil {
				return fmt.Errorf("argocd discover: %w", err)
			}
			if found != "" {
				fmt.Fprintln(cmd.OutOrStdout(), filepath.ToSlash(found))
			}
			return nil
		},
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// clearArgoEnv unsets, for the test, every variable Argo CD gives a plugin, so the environment
// the test runs in does not leak into it.
func clearArgoEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PARAM_") || strings.HasPrefix(k, "ARGOCD_") || k == "KUBE_VERSION" || k == "KUBE_API_VERSIONS" {
			t.Setenv(k, "")
			if err := os.Unsetenv(k); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// setEnv sets the variables for the test.
func setEnv(t *testing.T, env map[string]string) {
	t.Helper()
	clearArgoEnv(t)
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// hasRenderFlag reports whether render has the flag (some are being added).
func hasRenderFlag(name string) bool {
	return newRenderCommand().Flags().Lookup(name) != nil
}

func TestArgoCDGenerateArgs(t *testing.T) {
	wd := filepath.FromSlash("/checkout/apps/operators")
	root := filepath.FromSlash("/checkout")
	tests := []struct {
		name    string
		env     map[string]string
		want    []string
		wantErr []string // substrings of the error
	}{{
		name: "defaults",
		want: []string{"render", "--for=argocd", "--locked", "--", "."},
	}, {
		name: "no parameters, as Argo CD marshals them",
		env:  map[string]string{"ARGOCD_APP_PARAMETERS": "null"},
		want: []string{"render", "--for=argocd", "--locked", "--", "."},
	}, {
		name: "ARGOCD_APP_PARAMETERS strings, arrays and booleans",
		env: map[string]string{
			"ARGOCD_APP_SOURCE_PATH": "apps/operators",
			"ARGOCD_APP_PARAMETERS": `[{"name":"path","string":"in"},
				{"name":"catalog","array":["olm/a=cat","olm/b=oci://quay.io/x/index:v1"]},
				{"name":"include-olm-crds","string":"true"},{"name":"keep-intent","string":"false"},
				{"name":"cert-provider","string":"none"},{"name":"max-file-size","string":"1024"},
				{"name":"locked","string":"false"}]`,
		},
		want: []string{"render", "--root=" + root, "--catalog=olm/a=cat", "--catalog=olm/b=oci://quay.io/x/index:v1",
			"--cert-provider=none", "--for=argocd", "--include-olm-crds=true", "--keep-intent=false", "--no-lock", "--max-file-size=1024",
			"--", "in"},
	}, {
		name: "catalogs is an alias of catalog",
		env:  map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"catalogs","array":["olm/a=cat"]},{"name":"catalog","array":["olm/b=cat"]}]`},
		want: []string{"render", "--catalog=olm/b=cat", "--catalog=olm/a=cat", "--for=argocd", "--locked", "--", "."},
	}, {
		name: "an empty string takes the default",
		env:  map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"path","string":""},{"name":"cert-provider","string":""},{"name":"locked","string":""}]`},
		want: []string{"render", "--for=argocd", "--locked", "--", "."},
	}, {
		name: "a bare name is not given",
		env:  map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"catalog"}]`},
		want: []string{"render", "--for=argocd", "--locked", "--", "."},
	}, {
		name: "ARGOCD_APP_PARAMETERS wins over PARAM_",
		env:  map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"path","string":"a"}]`, "PARAM_PATH": "b", "PARAM_TYPO": "x"},
		want: []string{"render", "--for=argocd", "--locked", "--", "a"},
	}, {
		name: "PARAM_ fallback, array elements by index",
		env: map[string]string{"PARAM_PATH": "in", "PARAM_CATALOGS_10": "third", "PARAM_CATALOGS_2": "second",
			"PARAM_CATALOGS_0": "first", "PARAM_INCLUDE_OLM_CRDS": "true", "PARAM_LOCKED": "false"},
		want: []string{"render", "--catalog=first", "--catalog=second", "--catalog=third", "--for=argocd", "--include-olm-crds=true",
			"--no-lock", "--", "in"},
	}, {
		name: "ARGOCD_ENV_OLM_RENDER_ for parameters not given",
		env: map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"path","string":"a"}]`,
			"ARGOCD_ENV_OLM_RENDER_PATH": "b", "ARGOCD_ENV_OLM_RENDER_CATALOGS": "olm/a=x, olm/b=y",
			"ARGOCD_ENV_OLM_RENDER_ALLOW_FAILED": "true"},
		want: []string{"render", "--allow-failed=true", "--catalog=olm/a=x", "--catalog=olm/b=y", "--for=argocd", "--locked", "--", "a"},
	}, {
		name: "source path not matching the working directory",
		env:  map[string]string{"ARGOCD_APP_SOURCE_PATH": "elsewhere/operators"},
		want: []string{"render", "--root=" + wd, "--for=argocd", "--locked", "--", "."},
	}, {
		name: "the repository's top as source path",
		env:  map[string]string{"ARGOCD_APP_SOURCE_PATH": ""},
		want: []string{"render", "--root=" + wd, "--for=argocd", "--locked", "--", "."},
	}, {
		name:    "unknown parameter",
		env:     map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"incude-olm-crds","string":"true"}]`},
		wantErr: []string{`unknown parameter "incude-olm-crds"`, "include-olm-crds", "cert-provider", "locked", "path"},
	}, {
		name:    "unknown PARAM_",
		env:     map[string]string{"PARAM_INCUDE_OLM_CRDS": "true"},
		wantErr: []string{`unknown parameter "incude-olm-crds"`, "PARAM_INCUDE_OLM_CRDS", "include-olm-crds"},
	}, {
		name:    "unknown ARGOCD_ENV_OLM_RENDER_",
		env:     map[string]string{"ARGOCD_ENV_OLM_RENDER_CATALOG_PATH": "x"},
		wantErr: []string{`unknown parameter "catalog-path"`, "ARGOCD_ENV_OLM_RENDER_CATALOG_PATH"},
	}, {
		name:    "bad boolean",
		env:     map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"include-olm-crds","string":"yes"}]`},
		wantErr: []string{`parameter "include-olm-crds"`, `"yes"`},
	}, {
		name:    "booleans are case-sensitive",
		env:     map[string]string{"PARAM_OFFLINE": "True"},
		wantErr: []string{`parameter "offline"`, `"True"`},
	}, {
		name:    "bad locked",
		env:     map[string]string{"ARGOCD_ENV_OLM_RENDER_LOCKED": "1"},
		wantErr: []string{`parameter "locked"`, `"1"`},
	}, {
		name:    "array for a string",
		env:     map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"cert-provider","array":["none"]}]`},
		wantErr: []string{`parameter "cert-provider" is a string, given an array`},
	}, {
		name:    "string for an array",
		env:     map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"catalog","string":"olm/a=cat"}]`},
		wantErr: []string{`parameter "catalog" is an array, given the string "olm/a=cat"`},
	}, {
		name:    "map",
		env:     map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"path","map":{"a":"b"}}]`},
		wantErr: []string{`parameter "path" is a string, given a map`},
	}, {
		name:    "PARAM_ string for an array",
		env:     map[string]string{"PARAM_CATALOG": "olm/a=cat"},
		wantErr: []string{`parameter "catalog" is an array, given a string (from PARAM_CATALOG)`},
	}, {
		name:    "PARAM_ array for a boolean",
		env:     map[string]string{"PARAM_KEEP_INTENT_0": "true"},
		wantErr: []string{`parameter "keep-intent"`, "given an array or a map"},
	}, {
		name:    "given twice",
		env:     map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"path","string":"a"},{"name":"path","string":"b"}]`},
		wantErr: []string{`parameter "path" is given twice`},
	}, {
		name:    "not JSON",
		env:     map[string]string{"ARGOCD_APP_PARAMETERS": `{"name":"path"}`},
		wantErr: []string{"parsing ARGOCD_APP_PARAMETERS"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setEnv(t, tt.env)
			got, err := generateArgs(os.Environ(), wd)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("no error; args %q", got)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("args\n got %q\nwant %q", got, tt.want)
			}
			if err := newRenderCommand().ParseFlags(got[1:]); err != nil {
				t.Errorf("render does not take the args %q: %v", got, err)
			}
		})
	}
}

// TestArgoCDKubeVersion checks that kube-version, once render has the flag, defaults to the
// KUBE_VERSION Argo CD sets, and that a parameter overrides it.
func TestArgoCDKubeVersion(t *testing.T) {
	setEnv(t, map[string]string{"KUBE_VERSION": "1.31.0"})
	got, err := generateArgs(os.Environ(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !hasRenderFlag("kube-version") {
		if strings.Contains(strings.Join(got, " "), "kube-version") {
			t.Errorf("render has no --kube-version, yet the args are %q", got)
		}
		return
	}
	if !slices.Contains(got, "--kube-version=1.31.0") {
		t.Errorf("KUBE_VERSION is not the default: %q", got)
	}
	t.Setenv("ARGOCD_APP_PARAMETERS", `[{"name":"kube-version","string":"1.29.0"}]`)
	if got, err = generateArgs(os.Environ(), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, "--kube-version=1.29.0") || slices.Contains(got, "--kube-version=1.31.0") {
		t.Errorf("the parameter does not override KUBE_VERSION: %q", got)
	}
}

// TestArgoCDEveryRenderFlag checks that every render flag, but the excluded ones, is a parameter
// of its kind that reaches render.
func TestArgoCDEveryRenderFlag(t *testing.T) {
	params := pluginParams()
	excluded := excludedRenderFlags()
	envNames := map[string]string{}
	for _, p := range params {
		if other, dup := envNames[envName(p.name)]; dup {
			t.Errorf("parameters %s and %s share PARAM_%s", p.name, other, envName(p.name))
		}
		envNames[envName(p.name)] = p.name
	}
	flags := newRenderCommand().Flags()
	for name := range excluded {
		if name != "help" && flags.Lookup(name) == nil {
			t.Errorf("excluded flag --%s is no render flag", name)
		}
	}
	flags.VisitAll(func(f *pflag.Flag) {
		if _, skip := excluded[f.Name]; skip {
			return
		}
		p, ok := lookupParam(params, f.Name)
		if !ok {
			t.Errorf("render flag --%s is no parameter", f.Name)
			return
		}
		if p.flag != f.Name || p.kind != kindOf(f) {
			t.Errorf("parameter %s: flag %q kind %v, want --%s kind %v", p.name, p.flag, p.kind, f.Name, kindOf(f))
		}
		value := map[paramKind]string{stringParam: `"string":"x"`, boolParam: `"string":"true"`, arrayParam: `"array":["x"]`}[p.kind]
		if f.Value.Type() != "string" && p.kind == stringParam {
			value = fmt.Sprintf(`"string":%q`, f.DefValue)
		}
		setEnv(t, map[string]string{"ARGOCD_APP_PARAMETERS": `[{"name":"` + p.name + `",` + value + `}]`})
		got, err := generateArgs(os.Environ(), t.TempDir())
		if err != nil {
			t.Errorf("parameter %s: %v", p.name, err)
			return
		}
		if !strings.Contains(strings.Join(got, " "), "--"+f.Name+"=") {
			t.Errorf("parameter %s does not reach render: %q", p.name, got)
		}
		if err := newRenderCommand().ParseFlags(got[1:]); err != nil {
			t.Errorf("parameter %s: render does not take %q: %v", p.name, got, err)
		}
	})
}

func TestArgoCDCheckoutRoot(t *testing.T) {
	wd := filepath.FromSlash("/work/repo/apps/operators")
	for _, tt := range []struct{ source, want string }{
		{"apps/operators", "/work/repo"},
		{"apps/operators/", "/work/repo"},
		{"./apps/operators", "/work/repo"},
		{"operators", "/work/repo/apps"},
		{"", wd},
		{".", wd},
		{"other/operators", wd},
		{"/apps/operators", wd},
		{"../operators", wd},
		{"a/work/repo/apps/operators", wd},
	} {
		if got := checkoutRoot(wd, tt.source); got != filepath.FromSlash(tt.want) {
			t.Errorf("checkoutRoot(%q, %q) = %q, want %q", wd, tt.source, got, tt.want)
		}
	}
}

// TestArgoCDRootFromSourcePath runs in a tree shaped like Argo CD's checkout: the working
// directory is the source path inside it.
func TestArgoCDRootFromSourcePath(t *testing.T) {
	top := t.TempDir()
	app := filepath.Join(top, "clusters", "prod")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(app)
	setEnv(t, map[string]string{"ARGOCD_APP_SOURCE_PATH": "clusters/prod"})
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	got, err := generateArgs(os.Environ(), wd)
	if err != nil {
		t.Fatal(err)
	}
	if want := "--root=" + filepath.Dir(filepath.Dir(wd)); got[1] != want {
		t.Errorf("args %q, want %s", got, want)
	}
}

// TestArgoCDGenerateInCheckout runs generate as Argo CD does on this repository: the quickstart
// inputs as the source path, parameters in ARGOCD_APP_PARAMETERS. It writes what render --for
// argocd writes; a bad parameter writes nothing to stdout and says why on stderr.
func TestArgoCDGenerateInCheckout(t *testing.T) {
	code, want, errOut := runCLI(t, "render", "--for", "argocd", quickstart)
	if code != 0 {
		t.Fatalf("render: exit %d: %s", code, errOut)
	}
	input, err := filepath.Abs(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(input)
	setEnv(t, map[string]string{
		"ARGOCD_APP_SOURCE_PATH": "examples/quickstart/input",
		"ARGOCD_APP_PARAMETERS":  `[{"name":"locked","string":"true"},{"name":"cert-provider","string":"cert-manager"}]`,
	})
	code, out, errOut := runCLI(t, "argocd", "generate")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != want {
		t.Error("argocd generate differs from render")
	}
	for param, say := range map[string]string{
		`{"name":"include-olm-crds","string":"yes"}`: `"yes"`,
		`{"name":"incude-olm-crds","string":"true"}`: `unknown parameter "incude-olm-crds"`,
		`{"name":"catalog","string":"olm/x=y"}`:      `parameter "catalog"`,
		`{"name":"path","string":"../../../.."}`:     "",
	} {
		t.Setenv("ARGOCD_APP_PARAMETERS", "["+param+"]")
		code, out, errOut := runCLI(t, "argocd", "generate")
		if code == 0 || out != "" {
			t.Errorf("%s: exit %d, stdout %q", param, code, out)
		}
		if !strings.Contains(errOut, say) || errOut == "" {
			t.Errorf("%s: stderr does not say %q: %s", param, say, errOut)
		}
	}
}

// pluginYAML is the part of plugin.yaml the tests read.
type pluginYAML struct {
	Spec struct {
		Discover struct {
			Find struct {
				Command []string `json:"command"`
			} `json:"find"`
		} `json:"discover"`
		Generate struct {
			Command []string `json:"command"`
		} `json:"generate"`
		Parameters struct {
			Static []announcedParam `json:"static"`
		} `json:"parameters"`
	} `json:"spec"`
}

// announcedParam is a parameter announcement, without its title.
type announcedParam struct {
	Name           string `json:"name"`
	String         string `json:"string,omitempty"`
	CollectionType string `json:"collectionType,omitempty"`
}

// TestArgoCDPluginYAML checks that plugin.yaml announces exactly the plugin's parameters, with
// their defaults, and runs the plugin's commands.
func TestArgoCDPluginYAML(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "argocd", "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var plugin pluginYAML
	if err := yaml.Unmarshal(data, &plugin); err != nil {
		t.Fatal(err)
	}
	var want []announcedParam
	for _, p := range pluginParams() {
		if p.alias {
			continue
		}
		a := announcedParam{Name: p.name, String: p.def}
		if p.kind == arrayParam {
			a = announcedParam{Name: p.name, CollectionType: "array"}
		}
		want = append(want, a)
	}
	if got := plugin.Spec.Parameters.Static; !reflect.DeepEqual(got, want) {
		entries, _ := yaml.Marshal(want)
		t.Errorf("plugin.yaml parameters differ from the render flags\n got %+v\nwant %+v\nthe list (add titles):\n%s", got, want, entries)
	}
	if got, want := plugin.Spec.Generate.Command, []string{"olm-render", "argocd", "generate"}; !reflect.DeepEqual(got, want) {
		t.Errorf("generate command %q, want %q", got, want)
	}
	if got, want := plugin.Spec.Discover.Find.Command, []string{"olm-render", "argocd", "discover"}; !reflect.DeepEqual(got, want) {
		t.Errorf("discover command %q, want %q", got, want)
	}
}

func TestArgoCDDiscover(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want string) {
		t.Helper()
		got, err := findSubscription(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got != filepath.FromSlash(want) {
			t.Errorf("found %q, want %q", got, want)
		}
	}
	expect("")
	write("ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: operators\n")
	write("knative.yaml", "apiVersion: messaging.knative.dev/v1\nkind: Subscription\n")
	write("notes.txt", "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\n")
	write(".git/sub.yaml", "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\n")
	write("og.yaml", "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\n# kind: Subscription later\n")
	expect("")
	write("b/sub.json", `{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription"}`)
	expect("b/sub.json")
	write("a/list.yml", "items:\n- apiVersion: operators.coreos.com/v1alpha1\n  kind: \"Subscription\"  # the operator\n")
	expect("a/list.yml")

	t.Chdir(dir)
	code, out, errOut := runCLI(t, "argocd", "discover")
	if code != 0 || out != "a/list.yml\n" {
		t.Errorf("discover: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	t.Chdir(t.TempDir())
	if code, out, errOut := runCLI(t, "argocd", "discover"); code != 0 || out != "" {
		t.Errorf("discover with no Subscription: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}

// TestArgoCDDiscoverQuickstart checks that the quickstart inputs, lock file or not, are ours.
func TestArgoCDDiscoverQuickstart(t *testing.T) {
	got, err := findSubscription(quickstart)
	if err != nil || got != "subscription.yaml" {
		t.Errorf("findSubscription(quickstart) = %q, %v", got, err)
	}
}

// TestArgoCDGenerateReadsTheProject: the plugin reads the project file above the source path,
// inside the checkout, as every command does; a parameter overrides it; a project file's catalog
// path leaving the checkout is refused.
func TestArgoCDGenerateReadsTheProject(t *testing.T) {
	in := quickstartTree(t, projectHeader+"options:\n  copiedCSVs: false\n")
	if err := os.Mkdir(".git", 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(in)
	setEnv(t, map[string]string{"ARGOCD_APP_SOURCE_PATH": "input", "ARGOCD_APP_PARAMETERS": `[{"name":"locked","string":"false"}]`})
	code, out, errOut := runCLI(t, "argocd", "generate")
	if code != 0 || strings.Contains(out, "olm.copiedFrom") {
		t.Fatalf("generate with the project's copiedCSVs: false: exit %d, copies %d: %s", code, strings.Count(out, "olm.copiedFrom"), errOut)
	}
	t.Setenv("ARGOCD_APP_PARAMETERS", `[{"name":"locked","string":"false"},{"name":"copied-csvs","string":"true"}]`)
	if code, out, errOut := runCLI(t, "argocd", "generate"); code != 0 || !strings.Contains(out, "olm.copiedFrom") {
		t.Fatalf("the parameter copied-csvs did not override the project: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile("../olm-render.yaml", []byte(projectHeader+"catalogs:\n- {namespace: olm, name: examples, path: ../../outside}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARGOCD_APP_PARAMETERS", `[{"name":"locked","string":"false"}]`)
	if code, out, errOut := runCLI(t, "argocd", "generate"); code == 0 || out != "" || !strings.Contains(errOut, "catalogs[0].path") {
		t.Errorf("a project binding leaving the checkout: exit %d, stdout %d bytes: %s", code, len(out), errOut)
	}
}

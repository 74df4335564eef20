package project

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olm-render/olm-render/schemas/rootfs"
)

const header = "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\n"

func memFS(t *testing.T, files map[string]string) *rootfs.Map {
	t.Helper()
	m := map[string][]byte{}
	for k, v := range files {
		m[k] = []byte(v)
	}
	fsys, err := rootfs.NewMap("repo", m)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestFind: the nearest project file from the start directory up to the top wins; none is nil.
func TestFind(t *testing.T) {
	fsys := memFS(t, map[string]string{
		"olm-render.yaml":                 header + "options: {olm: running}\n",
		"clusters/east/olm-render.yaml":   header + "options: {olm: absent}\n",
		"clusters/east/input/sub.yaml":    "",
		"clusters/west/input/sub.yaml":    "",
		"elsewhere/olm-render.yaml/x.txt": "",
	})
	tests := []struct{ start, want, olm string }{
		{"clusters/east/input", "clusters/east/olm-render.yaml", "absent"},
		{"clusters/west/input", "olm-render.yaml", "running"},
		{".", "olm-render.yaml", "running"},
		{"elsewhere", "olm-render.yaml", "running"}, // a directory named olm-render.yaml is not one
	}
	for _, tt := range tests {
		f, err := Find(fsys, tt.start)
		if err != nil {
			t.Fatalf("Find(%s): %v", tt.start, err)
		}
		if f == nil || f.Name != tt.want || f.Config.Options.OLM != tt.olm {
			t.Errorf("Find(%s) = %+v, want %s with olm %s", tt.start, f, tt.want, tt.olm)
		}
	}
	none := memFS(t, map[string]string{"a/b.yaml": ""})
	if f, err := Find(none, "a"); f != nil || err != nil {
		t.Errorf("Find without a project file = %+v, %v", f, err)
	}
	if _, err := Find(none, "../outside"); err == nil {
		t.Error("Find started outside the root")
	}
}

// TestParseErrors: each mistake names the file and the field.
func TestParseErrors(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"unknown field", header + "option: {}\n", "p.yaml: RenderConfig: option: unknown field: did you mean options?"},
		{"wrong kind", "apiVersion: v1\nkind: ConfigMap\n", "want apiVersion olm-render.dev/v1alpha1, kind RenderConfig; got v1 ConfigMap"},
		{"binding without path", header + "catalogs: [{name: a, namespace: b}]\n", "catalogs[0]: name, namespace and path are required"},
		{"absolute cluster path", header + "clusters: [{name: a, path: /etc}]\n", `clusters[0].path: "/etc" must be relative to the project file`},
		{"output leaving", header + "clusters: [{name: a, path: x, outputDir: ../../out}]\n", `clusters[0].outputDir: "../../out" leaves the project's directory`},
		{"cluster option of the wrong type", header + "clusters: [{name: a, path: x, options: {copiedCSVs: maybe}}]\n", "clusters[0].options: copiedCSVs: want a bool, got a string"},
		{"not YAML", header + "options: [\n", "p.yaml: not a RenderConfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestSettings: the options set become flags in a fixed order; a cluster's own override the
// project's and only for it.
func TestSettings(t *testing.T) {
	cfg, err := Parse("p.yaml", []byte(header+`options: {olm: running, kubeVersion: v1.31.0, strict: false, copiedCSVs: false}
clusters:
- {name: east, path: east, options: {kubeVersion: v1.29.0, strict: true}}
- {name: west, path: west}
`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := cfg.Options.Settings()
	if err != nil {
		t.Fatal(err)
	}
	want := []Setting{
		{"options.olm", "olm", "running"},
		{"options.kubeVersion", "kube-version", "v1.31.0"},
		{"options.strict", "strict", "false"},
		{"options.copiedCSVs", "copied-csvs", "false"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("project settings (-want +got):\n%s", diff)
	}
	east, err := cfg.ClusterOptions(*cfg.Cluster("east"))
	if err != nil {
		t.Fatal(err)
	}
	if east.KubeVersion != "v1.29.0" || east.OLM != "running" || east.Strict == nil || !*east.Strict {
		t.Errorf("east's options %+v: want its own kubeVersion and strict over the project's", east)
	}
	if west, _ := cfg.ClusterOptions(*cfg.Cluster("west")); west.KubeVersion != "v1.31.0" {
		t.Errorf("west's kubeVersion %q, want the project's", west.KubeVersion)
	}
	if own := cfg.Cluster("east").OwnOptions(); !cmp.Equal(own, []string{"kubeVersion", "strict"}) {
		t.Errorf("east's own options %v", own)
	}
}

// TestEncode: what init writes reads back as the same RenderConfig, with comments.
func TestEncode(t *testing.T) {
	opts, err := OpenShift("4.18")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{APIVersion: APIVersion, Kind: Kind, Metadata: map[string]any{"name": "x"}, Options: opts}
	data, err := Encode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("p.yaml", data)
	if err != nil {
		t.Fatalf("the file written does not read back: %v\n%s", err, data)
	}
	if diff := cmp.Diff(cfg, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for _, want := range []string{"# olm-render's project file", "  # The cluster's OLM. running:", "kubeVersion: v1.31.0"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the file lacks %q:\n%s", want, data)
		}
	}
	if _, err := OpenShift("5.0"); err == nil {
		t.Error("an unknown OpenShift version was accepted")
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// canary is the content of the files outside the root: it must never reach stdout or stderr.
const canary = "CANARY-d41d8cd98f00"

// outsideSecret is a Secret outside the repository, as a kubeconfig token or key would be.
const outsideSecret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + "leak\n  namespace: operators\nstringData:\n  token: " + canary + "\n"

// hostile is the setup of one bad repository: top is the repository (the root, the working
// directory), outside a directory beside it holding secrets.
type hostile func(t *testing.T, top, outside string)

func symlink(target, name string) hostile {
	return func(t *testing.T, top, outside string) {
		t.Helper()
		target := strings.ReplaceAll(target, "$OUTSIDE", outside)
		name := filepath.Join(top, name)
		if err := os.RemoveAll(name); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
}

func write(name, content string) hostile {
	return func(t *testing.T, top, outside string) {
		t.Helper()
		fixtureWrite(t, filepath.Join(top, name), strings.ReplaceAll(content, "$OUTSIDE", outside))
	}
}

func remove(name string) hostile {
	return func(t *testing.T, top, _ string) {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(top, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func fifo(name string) hostile {
	return func(t *testing.T, top, _ string) {
		t.Helper()
		if err := syscall.Mkfifo(filepath.Join(top, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const (
	catalogSource = "input/catalogsource.yaml"
	widgetCSV     = "catalog/widget-operator/0.2.0/manifests/widget-operator.clusterserviceversion.yaml"
	gadgetBundle  = "catalog/gadget-operator/1.0.0"
)

// celBomb is a bundle property whose CEL rule costs the fourth power of a candidate's
// properties.
const celBomb = `properties:
- type: olm.constraint
  value:
    failureMessage: bomb
    cel:
      rule: 'properties.exists(p, properties.exists(q, properties.exists(r, properties.exists(s, p.type + q.type + r.type + s.type == "none"))))'
`

// manyProperties is a properties.yaml of n labels: the candidates a CEL bomb iterates over.
func manyProperties(n int) string {
	var b strings.Builder
	b.WriteString("properties:\n")
	for i := range n {
		fmt.Fprintf(&b, "- type: x.label\n  value: v%d\n", i)
	}
	return b.String()
}

// TestHostileRepository runs render -o against repositories built to read outside the root,
// write outside the output, hang, exhaust memory or quietly install something else. Each must
// exit non-zero with a message naming the file (and the object and field where there is one),
// leave no output directory and no file anywhere else, and never show what is outside the root.
func TestHostileRepository(t *testing.T) {
	abs, err := filepath.Abs("../../examples/quickstart/catalog")
	if err != nil {
		t.Fatal(err)
	}
	quickstartCatalog = abs
	tests := []struct {
		name  string
		setup []hostile
		edits []edit
		args  []string
		want  []string
	}{
		// Reads outside the root, through every kind of path.
		{name: "catalog by absolute path", setup: []hostile{copyCatalogOutside}, edits: []edit{{"catalogsource.yaml", "../catalog", "$OUTSIDE/catalog"}},
			want: []string{"input/catalogsource.yaml", "CatalogSource/olm/examples", "olm-render.dev/catalog", "leaves the root"}},
		{name: "catalog by ../ path", setup: []hostile{copyCatalogOutside}, edits: []edit{{"catalogsource.yaml", "../catalog", "../../" + "$OUTSIDE_BASE/catalog"}},
			want: []string{"input/catalogsource.yaml", "CatalogSource/olm/examples", "olm-render.dev/catalog", "leaves the root"}},
		{name: "catalog is /etc", edits: []edit{{"catalogsource.yaml", "../catalog", "/etc"}},
			want: []string{"input/catalogsource.yaml", "CatalogSource/olm/examples", "olm-render.dev/catalog"}},
		{name: "symlinked input file", setup: []hostile{symlink("$OUTSIDE/secret.yaml", "input/leak.yaml")},
			want: []string{"input/leak.yaml"}},
		{name: "symlinked input directory", setup: []hostile{symlink("$OUTSIDE", "input/more")},
			want: []string{"input/more"}},
		{name: "symlinked catalog folder", setup: []hostile{copyCatalogOutside, symlink("$OUTSIDE/catalog/widget-operator", "catalog/widget-operator")},
			want: []string{"catalog/widget-operator"}},
		{name: "symlinked bundle manifest", setup: []hostile{symlink("$OUTSIDE/secret.yaml", widgetCSV)},
			want: []string{widgetCSV, "widget-operator"}},
		{name: "symlinked lock", setup: []hostile{symlink("$OUTSIDE/secret.yaml", "input/olm-render.lock.yaml")},
			want: []string{"input/olm-render.lock.yaml", "outside the root"}},

		// Devices, FIFOs and sizes.
		{name: "catalog is /dev/zero", edits: []edit{{"catalogsource.yaml", "../catalog", "/dev/zero"}},
			want: []string{"input/catalogsource.yaml", "olm-render.dev/catalog"}},
		{name: "device symlinked as input", setup: []hostile{symlink("/dev/zero", "input/zero.yaml")},
			want: []string{"input/zero.yaml"}},
		{name: "FIFO input", setup: []hostile{fifo("input/pipe.yaml")},
			want: []string{"input/pipe.yaml", "not a regular file"}},
		{name: "FIFO bundle manifest", setup: []hostile{remove(widgetCSV), fifo(widgetCSV)},
			want: []string{widgetCSV, "not a regular file"}},
		{name: "input over the size limit", args: []string{"--max-file-size", "200"},
			want: []string{"input/subscription.yaml", "over the size limit", "raise --max-file-size"}},
		{name: "catalog over the total limit", args: []string{"--max-total-size", "4000"},
			want: []string{"--max-total-size"}},

		// Writes outside the output.
		{name: "namespace ..", edits: []edit{{"namespaces.yaml", "name: team-a", "name: .."}},
			want: []string{"input/namespaces.yaml", "Namespace/..", "metadata.name"}},
		{name: "subscription in namespace ../x", edits: []edit{{"subscription.yaml", "namespace: operators", "namespace: ../x"}},
			want: []string{"input/subscription.yaml", "Subscription/../x/widget-operator", "metadata.namespace: invalid namespace"}},

		// Bundles that cannot be read, or that OLM or the API server would refuse.
		{name: "bundle without annotations", setup: []hostile{remove("catalog/widget-operator/0.2.0/metadata/annotations.yaml")},
			want: []string{"catalog/widget-operator/0.2.0", "annotations.yaml", "widget-operator"}},
		{name: "manifests is a file", setup: []hostile{remove("catalog/widget-operator/0.2.0/manifests"), write("catalog/widget-operator/0.2.0/manifests", "x: 1\n")},
			want: []string{"catalog/widget-operator/0.2.0/manifests", "widget-operator"}},
		{name: "dependency bundle broken", setup: []hostile{remove(gadgetBundle + "/metadata/annotations.yaml")},
			want: []string{"could not be loaded and might: ", gadgetBundle + " (package gadget-operator)"}},
		{name: "repeated key in a CSV", edits: nil, setup: []hostile{appendTo(widgetCSV, "\nkind: Deployment\n")},
			want: []string{widgetCSV, "repeated key"}},
		{name: "repeated key in an input", edits: []edit{{"subscription.yaml", "  channel: stable", "  channel: stable\n  channel: fast"}},
			want: []string{"input/subscription.yaml", "repeated key"}},
		{name: "CSV named otherwise", setup: []hostile{replaceIn(widgetCSV, "name: widget-operator.v0.2.0", "name: Widget_Operator")},
			want: []string{widgetCSV, "ClusterServiceVersion/Widget_Operator", "metadata.name"}},
		{name: "deployment without image", setup: []hostile{replaceImage(widgetCSV)},
			want: []string{widgetCSV, "ClusterServiceVersion/widget-operator.v0.2.0", ".image: required"}},
		{name: "CRD file that is no CRD", setup: []hostile{replaceIn("catalog/widget-operator/0.2.0/manifests/widgets.example.com.crd.yaml", "group: example.com", "group: ''")},
			want: []string{"widgets.example.com.crd.yaml", "CustomResourceDefinition/widgets.example.com", "spec.group"}},

		// CPU.
		{name: "CEL cost bomb", setup: []hostile{write(gadgetBundle+"/metadata/properties.yaml", celBomb), write("catalog/widget-operator/0.2.0/metadata/properties.yaml", manyProperties(40))},
			want: []string{"gadget-operator.v1.0.0", "costs more than the limit"}},
	}
	for _, tt := range tests {
		for _, mode := range []string{"render", "argocd"} {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				outside := t.TempDir()
				fixtureWrite(t, filepath.Join(outside, "secret.yaml"), outsideSecret)
				edits := slices.Clone(tt.edits)
				for i := range edits {
					edits[i].new = strings.ReplaceAll(edits[i].new, "$OUTSIDE_BASE", strings.TrimPrefix(outside, "/"))
					edits[i].new = strings.ReplaceAll(edits[i].new, "$OUTSIDE", outside)
				}
				dir := quickstartWith(t, edits...)
				top, _ := os.Getwd()
				for _, setup := range tt.setup {
					setup(t, top, outside)
				}
				before := treeOf(t, filepath.Dir(top))
				code, out, errOut := runHostile(t, mode, dir, tt.args)
				if code == 0 {
					t.Fatalf("exit 0 on a hostile repository:\n%s", errOut)
				}
				if mode == "argocd" && out != "" {
					t.Errorf("a failed generate wrote %d bytes to stdout", len(out))
				}
				if strings.Contains(out+errOut, canary) {
					t.Errorf("content from outside the root reached the output:\n%s%s", out, errOut)
				}
				t.Logf("stderr:\n%s", errOut)
				for _, w := range tt.want {
					if mode == "argocd" {
						w = strings.ReplaceAll(w, "input/", "")
					}
					if !strings.Contains(errOut, w) {
						t.Errorf("stderr does not contain %q:\n%s", w, errOut)
					}
				}
				if after := treeOf(t, filepath.Dir(top)); !slices.Equal(before, after) {
					t.Errorf("files written by a failed render:\nbefore %v\nafter  %v", before, after)
				}
			})
		}
	}
}

// runHostile runs render -o out with the root the working directory, or argocd generate as the
// plugin runs in the checkout (the inputs' directory the source path, flags as parameters).
func runHostile(t *testing.T, mode, dir string, args []string) (int, string, string) {
	t.Helper()
	if mode == "render" {
		return runCLI(t, append(append([]string{"render", "--root", ".", "--output-dir", "out"}, args...), dir)...)
	}
	clearArgoEnv(t)
	params := []map[string]string{{"name": "locked", "string": "false"}}
	for i := 0; i+1 < len(args); i += 2 {
		params = append(params, map[string]string{"name": strings.TrimPrefix(args[i], "--"), "string": args[i+1]})
	}
	js, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	setEnv(t, map[string]string{"ARGOCD_APP_SOURCE_PATH": dir, "ARGOCD_APP_PARAMETERS": string(js)})
	t.Chdir(dir)
	return runCLI(t, "argocd", "generate")
}

// quickstartCatalog is the absolute path of the quickstart catalog (the tests change directory).
var quickstartCatalog string

// copyCatalogOutside copies the quickstart catalog outside the root, with a secret beside it.
func copyCatalogOutside(t *testing.T, _, outside string) {
	t.Helper()
	if err := os.CopyFS(filepath.Join(outside, "catalog"), os.DirFS(quickstartCatalog)); err != nil {
		t.Fatal(err)
	}
	fixtureWrite(t, filepath.Join(outside, "catalog", "widget-operator", "0.2.0", "manifests", "leak.yaml"), outsideSecret)
}

func appendTo(name, content string) hostile {
	return func(t *testing.T, top, _ string) {
		t.Helper()
		p := filepath.Join(top, name)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fixtureWrite(t, p, string(data)+content)
	}
}

func replaceIn(name, old, new string) hostile {
	return func(t *testing.T, top, _ string) {
		t.Helper()
		p := filepath.Join(top, name)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), old) {
			t.Fatalf("%s does not contain %q", name, old)
		}
		fixtureWrite(t, p, strings.Replace(string(data), old, new, 1))
	}
}

// replaceImage empties the image of every container of a CSV's deployments.
func replaceImage(name string) hostile {
	return func(t *testing.T, top, _ string) {
		t.Helper()
		p := filepath.Join(top, name)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if k := strings.Index(l, "image: "); k >= 0 && strings.HasPrefix(strings.TrimSpace(l), "image: ") {
				lines[i] = l[:k] + `image: ""`
			}
		}
		fixtureWrite(t, p, strings.Join(lines, "\n"))
	}
}

// treeOf lists every path under dir with its size and mode, to tell whether anything was written.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		entry := rel + " " + info.Mode().String()
		if info.Mode().IsRegular() {
			entry += " " + info.ModTime().String()
		}
		out = append(out, entry)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

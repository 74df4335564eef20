package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/rootfs"
)

// quickstart is the example the fuzz target starts from.
const quickstart = "../../examples/quickstart"

// FuzzPipeline runs a fuzzed CSV and a fuzzed CEL constraint through load, resolve and render:
// the widget-operator bundle of the quickstart gets csv as its ClusterServiceVersion and rule as
// an olm.constraint. No panic, no hang; an error, or a render that is the same when run again.
func FuzzPipeline(f *testing.F) {
	csv, err := os.ReadFile(filepath.Join(quickstart, "catalog/widget-operator/0.2.0/manifests/widget-operator.clusterserviceversion.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(csv, `properties.exists(p, p.type == "olm.package")`)
	f.Add(csv, `properties.exists(p, p.type == "olm.gvk" && p.value.kind == "Gadget")`)
	f.Add(bytes.Replace(csv, []byte("AllNamespaces\n    supported: true"), []byte("AllNamespaces\n    supported: false"), 1), `true`)
	f.Add([]byte("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: widget-operator.v0.2.0}\nspec: {version: 0.2.0}\n"), `false`)
	f.Fuzz(func(t *testing.T, csv []byte, rule string) {
		dir := fuzzTree(t, csv, rule)
		done := make(chan struct{})
		go func() {
			defer close(done)
			checkPipeline(t, dir)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatal("no result after a minute: the pipeline hangs on this input")
		}
	})
}

// checkPipeline runs the pipeline twice on dir: an error, or the same render both times.
func checkPipeline(t *testing.T, dir string) {
	first, err := runIn(t, dir)
	if err != nil {
		return
	}
	second, err := runIn(t, dir)
	if err != nil {
		t.Errorf("the second run failed: %v", err)
		return
	}
	if !bytes.Equal(first, second) {
		t.Error("two runs on the same input differ")
	}
}

// fuzzTree copies the quickstart into a temporary root with the widget bundle's CSV and
// properties replaced.
func fuzzTree(t *testing.T, csv []byte, rule string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"input", "catalog"} {
		if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join(quickstart, d))); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Remove(filepath.Join(dir, "input", "olm-render.lock.yaml"))
	bundle := filepath.Join(dir, "catalog", "widget-operator", "0.2.0")
	if err := os.WriteFile(filepath.Join(bundle, "manifests", "widget-operator.clusterserviceversion.yaml"), csv, 0o644); err != nil {
		t.Fatal(err)
	}
	props, err := json.Marshal(map[string]any{"properties": []any{map[string]any{
		"type": "olm.constraint", "value": map[string]any{"failureMessage": "fuzzed", "cel": map[string]string{"rule": rule}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bundle, "metadata", "properties.yaml"), props, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runIn runs the pipeline on dir/input with dir as the root and returns the objects as YAML. It
// runs on its own goroutine: it reports failures with t.Errorf, never t.Fatal.
func runIn(t *testing.T, dir string) ([]byte, error) {
	t.Helper()
	root, err := rootfs.OpenDir(dir, rootfs.Limits{MaxFileSize: 1 << 20, MaxTotalSize: 16 << 20})
	if err != nil {
		t.Errorf("opening the root: %v", err)
		return nil, err
	}
	defer root.Close()
	out, err := Run(context.Background(), Request{Paths: []string{filepath.Join(dir, "input")}, Root: root})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, o := range out.Objects {
		y, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Errorf("a rendered object does not encode: %v", err)
			return nil, err
		}
		b.Write(y)
		b.WriteString("---\n")
	}
	return b.Bytes(), nil
}

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// canary is the content of the files outside the kustomization: it must never reach stdout or
// stderr.
const canary = "CANARY-8c1e5f0b"

const outsideSecret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: leak\n  namespace: operators\nstringData:\n  token: " + canary + "\n"

// TestHostileKustomize runs the function under a real `kustomize build` on kustomizations built
// to read outside the kustomization root: catalog paths absolute or climbing out, a catalog
// folder, a package folder or a manifest symlinked out, a device as a catalog, a function config
// binding a path outside. Each build must fail, say why, and show nothing from outside.
func TestHostileKustomize(t *testing.T) {
	k := kustomize(t)
	bin := buildBinary(t)
	const (
		catalogSource = "overlays/base/catalogsource.yaml"
		catalogDir    = "overlays/base/catalog"
		widgetCSV     = catalogDir + "/widget-operator/0.2.0/manifests/widget-operator.clusterserviceversion.yaml"
	)
	tests := []struct {
		name  string
		setup func(t *testing.T, top, outside string)
		want  []string
	}{
		{"catalog by absolute path", func(t *testing.T, top, outside string) {
			edit(t, filepath.Join(top, catalogSource), "olm-render.dev/catalog: catalog", "olm-render.dev/catalog: "+filepath.Join(outside, "catalog"))
		}, []string{"outside the kustomization directory"}},
		{"catalog by ../ path", func(t *testing.T, top, outside string) {
			rel, err := filepath.Rel(filepath.Join(top, "overlays", "base"), filepath.Join(outside, "catalog"))
			if err != nil {
				t.Fatal(err)
			}
			edit(t, filepath.Join(top, catalogSource), "olm-render.dev/catalog: catalog", "olm-render.dev/catalog: "+rel)
		}, []string{"outside the kustomization directory"}},
		{"catalog is /dev/zero", func(t *testing.T, top, _ string) {
			edit(t, filepath.Join(top, catalogSource), "olm-render.dev/catalog: catalog", "olm-render.dev/catalog: /dev/zero")
		}, []string{"outside the kustomization directory"}},
		{"catalog folder symlinked out", func(t *testing.T, top, outside string) {
			relink(t, filepath.Join(outside, "catalog"), filepath.Join(top, catalogDir))
		}, []string{"overlays/base/catalog: cannot read catalog snapshot: outside the root"}},
		{"package folder symlinked out", func(t *testing.T, top, outside string) {
			relink(t, filepath.Join(outside, "catalog", "widget-operator"), filepath.Join(top, catalogDir, "widget-operator"))
		}, []string{"overlays/base/catalog/widget-operator: cannot follow symbolic link: outside the root"}},
		{"manifest symlinked out", func(t *testing.T, top, outside string) {
			relink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(top, widgetCSV))
		}, []string{"widget-operator.clusterserviceversion.yaml", "outside the root"}},
		{"function config binds a path outside", func(t *testing.T, top, outside string) {
			edit(t, filepath.Join(top, "kustomize", "olm-render.yaml"), "options:\n", "catalogs:\n- {name: examples, namespace: operators, path: "+filepath.Join(outside, "catalog")+"}\noptions:\n")
		}, []string{"outside the kustomization directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top, outside := t.TempDir(), t.TempDir()
			for _, d := range []string{"kustomize", "overlays"} {
				if err := os.CopyFS(filepath.Join(top, d), os.DirFS(filepath.Join(repo, "examples", d))); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.CopyFS(filepath.Join(outside, "catalog"), os.DirFS(filepath.Join(repo, "examples", "overlays", "base", "catalog"))); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"secret.yaml", "catalog/widget-operator/0.2.0/manifests/leak.yaml"} {
				if err := os.WriteFile(filepath.Join(outside, f), []byte(outsideSecret), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			annotationBound(t, filepath.Join(top, "kustomize"), bin)
			tt.setup(t, top, outside)
			stdout, stderr, err := run(t, k, "build", "--enable-alpha-plugins", "--enable-exec", filepath.Join(top, "kustomize"))
			if err == nil {
				t.Fatalf("kustomize build succeeded:\n%s", stdout)
			}
			if strings.Contains(stdout+stderr, canary) {
				t.Errorf("content from outside the kustomization reached the output:\n%s\n%s", stdout, stderr)
			}
			t.Logf("stderr:\n%s", stderr)
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// relink replaces name by a symbolic link to target.
func relink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.RemoveAll(name); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// annotationBound makes the copied examples/kustomize read its catalog as the base's CatalogSource
// annotation names it (origin annotations tell the function which file declared it) rather than
// from the function config's binding, with the function at bin: the confinement of annotation
// paths is what these cases attack.
func annotationBound(t *testing.T, dir, bin string) {
	t.Helper()
	kustomization := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../overlays/base\n" +
		"buildMetadata:\n- originAnnotations\ntransformers:\n- olm-render.yaml\n"
	config := "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\nmetadata:\n  name: olm-render\n  annotations:\n" +
		"    config.kubernetes.io/function: |\n      exec:\n        path: " + bin + "\n        args: [fn]\noptions:\n  includeOLMCRDs: false\n"
	for name, content := range map[string]string{"kustomization.yaml": kustomization, "olm-render.yaml": config} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

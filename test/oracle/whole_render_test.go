package oracle

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// renderCatalogs loads each catalog snapshot once for every render (a LoadFunc as the
// pipeline's own, catalog.LoadFS, with a cache in front).
var renderCatalogs struct {
	sync.Mutex
	byName map[string]*renderCatalogOnce
}

type renderCatalogOnce struct {
	once sync.Once
	cat  *catalog.Catalog
	err  error
}

// loadCatalogCached is an inputs.LoadFunc that loads each snapshot once; root must be "/".
func loadCatalogCached(root rootfs.FS, src inputs.Source) (*catalog.Catalog, error) {
	if src.Image != "" {
		return nil, fmt.Errorf("catalog %s: images are not used here", src)
	}
	renderCatalogs.Lock()
	if renderCatalogs.byName == nil {
		renderCatalogs.byName = map[string]*renderCatalogOnce{}
	}
	o := renderCatalogs.byName[src.Path]
	if o == nil {
		o = &renderCatalogOnce{}
		renderCatalogs.byName[src.Path] = o
	}
	renderCatalogs.Unlock()
	o.once.Do(func() {
		// The catalog outlives the render that loads it first, and a bundle tree reads its
		// manifests when a render needs them: it keeps a root of its own, the same "/".
		own, err := rootfs.OpenDir("/", rootfs.Limits{})
		if err != nil {
			o.err = fmt.Errorf("opening /: %w", err)
			return
		}
		o.cat, o.err = catalog.LoadFS(own, src.Path)
	})
	return o.cat, o.err
}

// ourCatalog loads a snapshot from disk as the render loads it (the same cache).
func ourCatalog(path string) (*catalog.Catalog, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	root, err := rootfs.OpenDir("/", rootfs.Limits{})
	if err != nil {
		return nil, fmt.Errorf("opening /: %w", err)
	}
	defer root.Close()
	name, err := root.Rel(abs)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	return loadCatalogCached(root, inputs.Source{Path: name})
}

// bindCatalog returns the inputs with the CatalogSource annotated with the catalog's path,
// relative to dir, where the inputs are written: the annotation binds olm-render's
// CatalogSource to its snapshot. Both sides get the annotated CatalogSource (OLM ignores the
// annotation), so the binding is no difference.
func bindCatalog(in installInputs, catalogPath, dir string) (installInputs, error) {
	abs, err := filepath.Abs(catalogPath)
	if err != nil {
		return in, fmt.Errorf("catalog %s: %w", catalogPath, err)
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return in, fmt.Errorf("catalog %s: %w", catalogPath, err)
	}
	in.CatalogSource = in.CatalogSource.DeepCopy()
	in.CatalogSource.Annotations = map[string]string{inputs.CatalogAnnotation: rel}
	return in, nil
}

// renderWithOLMRender renders for the Kubernetes version the fake API server reports: see
// renderAt.
func renderWithOLMRender(ctx context.Context, in installInputs, dir string) (*pipeline.Output, error) {
	return renderAt(ctx, in, dir, kubeVersion)
}

// renderAt writes the inputs (bound to their catalog by bindCatalog) as YAML files
// into dir and renders them with olm-render's pipeline (inputs.Load with a catalog cache,
// pipeline.RunSet), as `olm-render render --keep-intent` does. Subscriptions and
// CatalogSources are kept so that the Subscriptions OLM labels and creates compare too.
func renderAt(ctx context.Context, in installInputs, dir, kubeVersion string) (*pipeline.Output, error) {
	return renderResolved(ctx, in, dir, kubeVersion, resolver.Options{})
}

// renderResolved is renderAt with resolver options: the installed CSVs a lock records, say.
func renderResolved(ctx context.Context, in installInputs, dir, kubeVersion string, opts resolver.Options) (*pipeline.Output, error) {
	return renderWith(ctx, in, dir, opts, render.Options{KeepIntent: true, KubeVersion: kubeVersion})
}

// renderWith is renderAt with resolver and render options.
func renderWith(ctx context.Context, in installInputs, dir string, opts resolver.Options, ropts render.Options) (*pipeline.Output, error) {
	if err := writeInputs(in, dir); err != nil {
		return nil, err
	}
	root, err := rootfs.OpenDir("/", rootfs.Limits{})
	if err != nil {
		return nil, fmt.Errorf("opening /: %w", err)
	}
	defer root.Close()
	req := pipeline.Request{Paths: []string{dir}, Root: root, Resolve: opts, Render: ropts}
	set, err := inputs.Load(req.Paths, inputs.LoadOptions{Root: root, LoadCatalog: loadCatalogCached})
	if err != nil {
		return nil, fmt.Errorf("loading inputs: %w", err)
	}
	return pipeline.RunSet(ctx, set, req)
}

// writeInputs writes the inputs as YAML files.
func writeInputs(in installInputs, dir string) error {
	files := map[string][]runtime.Object{
		"namespaces.yaml":    namespaceObjects(in.Namespaces),
		"operatorgroup.yaml": {in.OperatorGroup},
		"catalogsource.yaml": {in.CatalogSource},
		"subscription.yaml":  {in.Subscription},
	}
	for name, objs := range files {
		data, err := yamlStream(objs)
		if err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}

// namespaceObjects returns namespaces as objects.
func namespaceObjects(nss []*corev1.Namespace) []runtime.Object {
	out := make([]runtime.Object, 0, len(nss))
	for _, ns := range nss {
		out = append(out, ns)
	}
	return out
}

// yamlStream marshals objects as a multi-document YAML stream, each with its kind.
func yamlStream(objs []runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	for _, o := range objs {
		u, err := toUnstructured(o)
		if err != nil {
			return nil, err
		}
		data, err := yaml.Marshal(u)
		if err != nil {
			return nil, fmt.Errorf("marshalling: %w", err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	return buf.Bytes(), nil
}

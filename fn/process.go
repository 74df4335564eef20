package fn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/diff"
	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// Processor is the KRM function.
type Processor struct {
	// Root is the kustomization root catalog paths must stay inside; the working directory when
	// empty (kustomize runs exec functions in the kustomization's directory).
	Root string
	// LoadCatalog loads snapshots; catalog.Load when nil.
	LoadCatalog func(string) (*catalog.Catalog, error)
}

// intentKinds are the kinds the function consumes (Namespaces are also kept).
var intentKinds = map[string]bool{
	"Namespace": true, "OperatorGroup": true, "Subscription": true, "CatalogSource": true,
	"OLMConfig": true, "OperatorCondition": true,
}

// Process implements framework.ResourceListProcessor. It returns rl.Results when any is an
// error, so the function exits non-zero (framework.Execute does not do it for us).
func (p *Processor) Process(rl *framework.ResourceList) error {
	if err := p.process(rl); err != nil {
		rl.Results = append(rl.Results, resultsOf(err)...)
	}
	rl.Results.Sort()
	if rl.Results.ExitCode() != 0 {
		return rl.Results
	}
	return nil
}

func (p *Processor) process(rl *framework.ResourceList) error {
	cfg := &RenderConfig{}
	if rl.FunctionConfig == nil {
		return errors.New("missing functionConfig: want a RenderConfig (apiVersion olm-render.dev/v1alpha1)")
	}
	if err := framework.LoadFunctionConfig(rl.FunctionConfig, cfg); err != nil {
		return fmt.Errorf("invalid RenderConfig: %w", err)
	}
	root, err := p.root()
	if err != nil {
		return err
	}
	var (
		items []inputs.Item
		keep  []*yaml.RNode
	)
	for _, node := range rl.Items {
		u, origin, err := toUnstructured(node)
		if err != nil {
			return err
		}
		kind := u.GetKind()
		isIntent := intentKinds[kind] && (kind == "Namespace" || strings.HasPrefix(u.GetAPIVersion(), "operators.coreos.com/"))
		if !isIntent {
			keep = append(keep, node)
			continue
		}
		if kind == "Namespace" {
			keep = append(keep, node)
		}
		if err := p.checkCatalogAnnotation(u, origin, root); err != nil {
			return err
		}
		items = append(items, inputs.Item{Object: u, Origin: origin})
	}
	opts := inputs.LoadOptions{LoadCatalog: p.LoadCatalog}
	// Catalog paths are relative to the file that declares the RenderConfig (kustomize's path
	// annotation, relative to the kustomization root), and may not leave the root.
	base := root
	if _, origin, err := toUnstructured(rl.FunctionConfig); err == nil && origin.File != "" {
		base = filepath.Join(root, filepath.Dir(origin.File))
	}
	for _, b := range cfg.Catalogs {
		path := b.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(base, path)
		}
		path, err := insideRoot(root, path)
		if err != nil {
			return fmt.Errorf("RenderConfig catalogs %s/%s: %w", b.Namespace, b.Name, err)
		}
		opts.Catalogs = append(opts.Catalogs, inputs.Binding{Namespace: b.Namespace, Name: b.Name, Path: path, Priority: b.Priority})
	}
	set, err := inputs.FromItems(items, opts)
	if err != nil {
		return err
	}
	provider, err := webhook.ParseProvider(cfg.Options.CertProvider)
	if err != nil {
		return fmt.Errorf("RenderConfig options.certProvider: %w", err)
	}
	req := pipeline.Request{
		Resolve: resolver.Options{GlobalCatalogNamespace: cfg.Options.GlobalCatalogNamespace},
		Render: render.Options{AllowFailed: cfg.Options.AllowFailed, KeepIntent: cfg.Options.KeepIntent,
			IncludeOLMCRDs: cfg.Options.IncludeOLMCRDs, Status: cfg.Options.Status, CertProvider: provider},
	}
	out, err := pipeline.RunSet(context.Background(), set, req)
	if err != nil {
		return err
	}
	for _, w := range append(set.Warnings, out.Warnings...) {
		rl.Results = append(rl.Results, resultOf(w, framework.Warning))
	}
	rendered, err := p.generated(out.Objects)
	if err != nil {
		return err
	}
	rl.Items = append(keep, rendered...)
	return nil
}

// generated converts rendered objects to RNodes, leaving out the Namespaces (the originals are
// kept) and giving each a path annotation under olm-render/.
func (p *Processor) generated(objs []*unstructured.Unstructured) ([]*yaml.RNode, error) {
	var keep []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != "Namespace" {
			keep = append(keep, o)
		}
	}
	names, err := emit.FileNames(keep)
	if err != nil {
		return nil, err
	}
	out := make([]*yaml.RNode, 0, len(keep))
	for i, o := range keep {
		b, err := emit.Marshal(o)
		if err != nil {
			return nil, err
		}
		node, err := yaml.Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("converting %s: %w", diff.KeyOf(o), err)
		}
		path := "olm-render/" + names[i]
		for _, key := range []string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation} {
			if err := node.PipeE(yaml.SetAnnotation(key, path)); err != nil {
				return nil, err
			}
		}
		out = append(out, node)
	}
	return out, nil
}

func (p *Processor) root() (string, error) {
	root := p.Root
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		root = wd
	}
	return filepath.Abs(root)
}

// insideRoot resolves a path relative to root and refuses one outside it.
func insideRoot(root, path string) (string, error) {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, path)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("catalog path %q is outside the kustomization root %s", path, root)
	}
	return abs, nil
}

// checkCatalogAnnotation refuses an olm-render.dev/catalog annotation that leaves the root.
func (p *Processor) checkCatalogAnnotation(u *unstructured.Unstructured, origin diag.Origin, root string) error {
	path := u.GetAnnotations()[inputs.CatalogAnnotation]
	if path == "" || u.GetKind() != "CatalogSource" {
		return nil
	}
	base := root
	if origin.File != "" {
		base = filepath.Join(root, filepath.Dir(origin.File))
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	if _, err := insideRoot(root, path); err != nil {
		return diag.Problems{{Severity: diag.Error, Origin: origin, Object: "CatalogSource/" + u.GetNamespace() + "/" + u.GetName(),
			Field: "metadata.annotations[" + inputs.CatalogAnnotation + "]", Message: err.Error()}}
	}
	return nil
}

// toUnstructured converts an item, with its origin from kustomize's path and index annotations
// (paths relative to the kustomization root, which is the working directory).
func toUnstructured(node *yaml.RNode) (*unstructured.Unstructured, diag.Origin, error) {
	var origin diag.Origin
	annotations := node.GetAnnotations()
	for _, key := range []string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation} {
		if p := annotations[key]; p != "" {
			origin.File = filepath.FromSlash(p)
			break
		}
	}
	for _, key := range []string{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation} {
		if i, err := strconv.Atoi(annotations[key]); err == nil {
			origin.Index = i
			break
		}
	}
	s, err := node.String()
	if err != nil {
		return nil, origin, err
	}
	m := map[string]any{}
	if err := k8syaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, origin, fmt.Errorf("%s: %w", origin, err)
	}
	return &unstructured.Unstructured{Object: m}, origin, nil
}

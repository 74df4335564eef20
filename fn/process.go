package fn

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
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
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// Processor is the KRM function.
type Processor struct {
	// Root is the kustomization root catalog paths must stay inside; the working directory when
	// empty (kustomize runs exec functions in the kustomization's directory).
	Root string
	// LoadCatalog loads snapshots; catalog.LoadFS when nil.
	LoadCatalog inputs.LoadFunc
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
	defer root.Close()
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
		items = append(items, inputs.Item{Object: u, Origin: origin, File: fileInRoot(origin.File)})
	}
	opts := inputs.LoadOptions{Root: root, LoadCatalog: p.LoadCatalog}
	// Catalog paths are relative to the file that declares the RenderConfig (kustomize's path
	// annotation, relative to the kustomization root), and may not leave the root.
	base := "."
	if _, origin, err := toUnstructured(rl.FunctionConfig); err == nil && fileInRoot(origin.File) != "" {
		base = path.Dir(fileInRoot(origin.File))
	}
	for _, b := range cfg.Catalogs {
		binding := inputs.Binding{Namespace: b.Namespace, Name: b.Name, Path: b.Path, Priority: b.Priority}
		if !strings.HasPrefix(b.Path, inputs.ImagePrefix) {
			name, err := rootfs.Join(base, filepath.ToSlash(b.Path))
			if err != nil {
				return fmt.Errorf("RenderConfig catalogs %s/%s: catalog path %q is outside the kustomization root %s", b.Namespace, b.Name, b.Path, root.Root())
			}
			binding.Path = filepath.Join(root.Root(), filepath.FromSlash(name))
		}
		opts.Catalogs = append(opts.Catalogs, binding)
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

// root opens the kustomization root every catalog is read from.
func (p *Processor) root() (*rootfs.Dir, error) {
	root := p.Root
	if root == "" {
		root = "."
	}
	return rootfs.OpenDir(root, rootfs.Limits{})
}

// fileInRoot returns a kustomize path annotation as a name inside the root, or "" when it is not
// one (a base outside the kustomization's directory).
func fileInRoot(file string) string {
	name := filepath.ToSlash(filepath.Clean(file))
	if file == "" || !fs.ValidPath(name) {
		return ""
	}
	return name
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

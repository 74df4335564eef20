package fn

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/pipeline"
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
	// Bound is the directory no catalog path may leave, whatever the RenderConfig's load
	// restrictor says (the RenderConfig is repository content, so it cannot widen reads past
	// the repository): the Git work tree holding Root when empty, else the filesystem.
	Bound string
}

// consumed reports whether the function consumes an object: every operators.coreos.com object
// (so a typo in a kind is reported, not passed through) and Namespaces (which it also keeps).
func consumed(u *unstructured.Unstructured) bool {
	return strings.HasPrefix(u.GetAPIVersion(), "operators.coreos.com/") || u.GetKind() == "Namespace" && u.GetAPIVersion() == "v1"
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

// bound returns the directory no catalog path may leave (Processor.Bound).
func (p *Processor) bound(cwd string) string {
	if p.Bound != "" {
		if abs, err := filepath.Abs(p.Bound); err == nil {
			return abs
		}
		return p.Bound
	}
	if top, ok := rootfs.GitWorkTree(cwd); ok {
		return top
	}
	return string(filepath.Separator)
}

func (p *Processor) process(rl *framework.ResourceList) error {
	own, err := loadConfig(rl.FunctionConfig)
	if err != nil {
		return err
	}
	cwd, err := p.root()
	if err != nil {
		return err
	}
	bound := p.bound(cwd)
	proj, projDir, err := findProject(cwd, bound)
	if err != nil {
		return err
	}
	cfg, err := withProject(own, proj)
	if err != nil {
		return err
	}
	req, err := Request(cfg)
	if err != nil {
		return err
	}
	items, keep, err := split(rl.Items)
	if err != nil {
		return err
	}
	b := &binder{cwd: cwd, restrictor: req.LoadRestrictor, bound: bound}
	defer b.close()
	fromProject, err := b.projectBindings(own, proj, projDir)
	if err != nil {
		return err
	}
	opts, err := b.options(own, rl.FunctionConfig, items, fromProject)
	if err != nil {
		return err
	}
	opts.LoadCatalog, opts.Strict, opts.AllowUnknownFields = p.LoadCatalog, req.Strict, req.AllowUnknownFields
	set, err := inputs.FromItems(items, opts)
	if err != nil {
		return err
	}
	if len(set.Subscriptions) == 0 && !req.AllowEmpty {
		return errors.New("no Subscription among the resources: nothing to render, and an empty render would prune every operator; set options.allowEmpty to render none on purpose")
	}
	out, err := pipeline.RunSet(context.Background(), set, req)
	if err != nil {
		return err
	}
	for _, w := range append(pipeline.LoadWarnings(set, out.Resolution), out.Warnings...) {
		rl.Results = append(rl.Results, resultOf(w, framework.Warning))
	}
	rendered, err := p.generated(out.Objects)
	if err != nil {
		return err
	}
	rl.Items = append(keep, rendered...)
	return nil
}

// loadConfig reads the functionConfig.
func loadConfig(node *yaml.RNode) (cfg *RenderConfig, err error) {
	cfg = &RenderConfig{}
	if node.IsNil() || node.IsNilOrEmpty() {
		return nil, errors.New("missing functionConfig: want a RenderConfig (apiVersion olm-render.dev/v1alpha1)")
	}
	if k := node.YNode().Kind; k != yaml.MappingNode {
		return nil, fmt.Errorf("functionConfig: want a RenderConfig object (apiVersion olm-render.dev/v1alpha1), got a YAML %s", kindName(k))
	}
	defer func() {
		// kyaml validates against the schema with kube-openapi, which panics on some shapes
		// of input; a functionConfig is input, so that is an invalid RenderConfig, not a crash.
		if r := recover(); r != nil {
			cfg, err = nil, fmt.Errorf("invalid RenderConfig: its schema validation failed on this input (%v)", r)
		}
	}()
	if err := checkConfigFields(node); err != nil {
		return nil, err
	}
	if err := framework.LoadFunctionConfig(node, cfg); err != nil {
		return nil, fmt.Errorf("invalid RenderConfig: %w", err)
	}
	return cfg, nil
}

// checkConfigFields refuses the unknown fields of the functionConfig, each with the field it most
// likely meant (kyaml's schema validation calls them forbidden properties and suggests nothing).
func checkConfigFields(node *yaml.RNode) error {
	js, err := node.MarshalJSON()
	if err != nil {
		return nil // the schema validation reports it
	}
	_, origin, _ := toUnstructured(node)
	return CheckFields(origin.File, js)
}

// kindName names a YAML node kind for messages.
func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}

// split separates the objects the function consumes (as items) from the ones it keeps.
func split(nodes []*yaml.RNode) ([]inputs.Item, []*yaml.RNode, error) {
	var (
		items []inputs.Item
		keep  []*yaml.RNode
	)
	for _, node := range nodes {
		u, origin, err := toUnstructured(node)
		if err != nil {
			return nil, nil, err
		}
		if !consumed(u) || u.GetKind() == "Namespace" {
			keep = append(keep, node)
		}
		if consumed(u) {
			items = append(items, inputs.Item{Object: u, Origin: origin})
		}
	}
	return items, keep, nil
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
			return nil, fmt.Errorf("converting %s: %w", emit.KeyOf(o), err)
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

// root returns the function's directory (the kustomization's), absolute.
func (p *Processor) root() (string, error) {
	root := p.Root
	if root == "" {
		root = "."
	}
	return filepath.Abs(root)
}

// toUnstructured converts an item, with the file it came from: kustomize's origin annotation
// (buildMetadata: [originAnnotations], a path relative to the kustomization's directory), else
// the path annotation kpt sets; and its index in that file.
func toUnstructured(node *yaml.RNode) (*unstructured.Unstructured, diag.Origin, error) {
	var origin diag.Origin
	annotations := node.GetAnnotations()
	if o := annotations[originAnnotation]; o != "" {
		var v struct {
			Path string `json:"path"`
			Repo string `json:"repo"`
		}
		if k8syaml.Unmarshal([]byte(o), &v) == nil && v.Repo == "" {
			origin.File = filepath.FromSlash(v.Path)
		}
	}
	for _, key := range []string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation} {
		if p := annotations[key]; p != "" && origin.File == "" {
			origin.File = filepath.FromSlash(p)
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
		return nil, origin, fmt.Errorf("%s: %s", origin, diag.Decoding(err))
	}
	return &unstructured.Unstructured{Object: m}, origin, nil
}

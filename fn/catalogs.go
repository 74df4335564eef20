package fn

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// originAnnotation is where kustomize records the file a resource came from.
const originAnnotation = "config.kubernetes.io/origin"

// binder binds catalog snapshots as kustomize would let the kustomization that declares them load
// a file: a catalog path is relative to the file declaring it, and with
// LoadRestrictionsRootOnly (the default) must lie inside the directory of the kustomization that
// holds that file, symbolic links resolved (each such directory is opened as a confined root). So
// a base can ship a catalog its overlays share. LoadRestrictionsNone allows any path inside bound
// (the repository).
type binder struct {
	cwd        string // the function's directory, absolute
	bound      string // the directory no path may leave, absolute
	restrictor inputs.LoadRestrictor
	roots      map[string]*rootfs.Dir
}

// options builds the load options: the function's directory as root, and one binding per
// CatalogSource with a catalog path, then the project file's, then one per RenderConfig catalog
// (each overriding the ones before it).
func (b *binder) options(cfg *RenderConfig, config *yaml.RNode, items []inputs.Item, fromProject []inputs.Binding) (inputs.LoadOptions, error) {
	root, err := b.open(b.cwd)
	if err != nil {
		return inputs.LoadOptions{}, err
	}
	opts := inputs.LoadOptions{Root: root, LoadRestrictor: b.restrictor}
	var problems diag.Problems
	for _, it := range items {
		binding, ok, err := b.annotated(it)
		switch {
		case err != nil:
			problems.Add(diag.Problem{Severity: diag.Error, Origin: it.Origin, Object: "CatalogSource/" + it.Object.GetNamespace() + "/" + it.Object.GetName(),
				Field: "metadata.annotations[" + inputs.CatalogAnnotation + "]", Message: err.Error()})
		case ok:
			opts.Catalogs = append(opts.Catalogs, binding)
		}
	}
	opts.Catalogs = append(opts.Catalogs, fromProject...)
	configDir := "."
	_, origin, err := toUnstructured(config)
	if err == nil && origin.File != "" {
		configDir = filepath.Dir(origin.File)
	}
	for i, c := range cfg.Catalogs {
		binding := inputs.Binding{Namespace: c.Namespace, Name: c.Name, Path: c.Path, Priority: c.Priority,
			Origin: origin, Field: fmt.Sprintf("RenderConfig catalogs[%d].path", i)}
		if !strings.HasPrefix(c.Path, inputs.ImagePrefix) {
			if binding.Root, binding.Path, err = b.resolve(configDir, c.Path); err != nil {
				problems.Errorf(diag.Origin{}, "RenderConfig", fmt.Sprintf("catalogs[%d].path", i), "%v", err)
				continue
			}
		}
		opts.Catalogs = append(opts.Catalogs, binding)
	}
	return opts, problems.Err()
}

// annotated returns the binding of a CatalogSource's catalog path annotation, if it has one.
func (b *binder) annotated(it inputs.Item) (inputs.Binding, bool, error) {
	u := it.Object
	p := u.GetAnnotations()[inputs.CatalogAnnotation]
	if u.GetKind() != "CatalogSource" || p == "" || strings.HasPrefix(p, inputs.ImagePrefix) {
		return inputs.Binding{}, false, nil
	}
	dir := "."
	if it.Origin.File != "" {
		dir = filepath.Dir(it.Origin.File)
	}
	root, name, err := b.resolve(dir, p)
	if err != nil && it.Origin.File == "" {
		err = fmt.Errorf("%w (the resource carries no origin: add `buildMetadata: [originAnnotations]` to the kustomization, so catalog paths resolve relative to the file declaring them)", err)
	}
	return inputs.Binding{Namespace: u.GetNamespace(), Name: u.GetName(), Path: name, Root: root,
		Origin: it.Origin, Field: "metadata.annotations[" + inputs.CatalogAnnotation + "]"}, err == nil, err
}

// resolve opens the root a catalog path may be read from and returns its name inside it; dir is
// the declaring file's directory, relative to the function's.
func (b *binder) resolve(dir, p string) (*rootfs.Dir, string, error) {
	base := filepath.Join(b.cwd, dir)
	target := p
	if !filepath.IsAbs(target) {
		target = filepath.Join(base, filepath.FromSlash(p))
	}
	top := b.bound
	if b.restrictor != types.LoadRestrictionsNone {
		top = kustomizationDir(base, b.cwd)
		if !rootfs.Within(top, b.bound) {
			top = b.bound
		}
	}
	root, err := b.open(top)
	if err != nil {
		return nil, "", err
	}
	name, err := root.Rel(target)
	switch {
	case err == nil:
		return root, name, nil
	case top == b.bound:
		return nil, "", fmt.Errorf("catalog path %q is outside %s, the repository (or --root) the function reads from: keep catalog snapshots inside it", p, root.Path("."))
	}
	return nil, "", fmt.Errorf("catalog path %q is outside the kustomization directory %s (kustomize's LoadRestrictionsRootOnly: keep the catalog inside it, or set options.loadRestrictor: LoadRestrictionsNone)", p, root.Path("."))
}

// kustomizationDir returns the directory of the kustomization holding dir: the nearest directory
// at or above it with a kustomization file; fallback when none.
func kustomizationDir(dir, fallback string) string {
	for d := dir; ; d = filepath.Dir(d) {
		for _, f := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
			if info, err := os.Lstat(filepath.Join(d, f)); err == nil && info.Mode().IsRegular() {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return fallback
		}
	}
}

// open opens (once) a confined root.
func (b *binder) open(dir string) (*rootfs.Dir, error) {
	if b.roots == nil {
		b.roots = map[string]*rootfs.Dir{}
	}
	if d, ok := b.roots[dir]; ok {
		return d, nil
	}
	d, err := rootfs.OpenDir(dir, rootfs.Limits{})
	if err != nil {
		return nil, err
	}
	b.roots[dir] = d
	return d, nil
}

func (b *binder) close() {
	for _, d := range b.roots {
		d.Close()
	}
}

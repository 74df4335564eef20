package fn

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/project"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// The function reads the repository's project file (olm-render.yaml, schemas/project), as every
// command does: the nearest one at or above the kustomization's directory, inside the
// repository (the Git work tree; without one, only the kustomization's directory is searched).
// Its options and catalogs apply where the functionConfig sets none of its own.

// findProject returns the project file above cwd inside bound, and the directory it is in.
func findProject(cwd, bound string) (*project.File, string, error) {
	top := bound
	if _, ok := rootfs.GitWorkTree(cwd); !ok || !rootfs.Within(cwd, bound) {
		top = cwd
	}
	root, err := rootfs.OpenDir(top, rootfs.DefaultLimits())
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	rel, err := root.Rel(cwd)
	if err != nil {
		return nil, "", nil
	}
	f, err := project.Find(root, filepath.ToSlash(rel))
	if err != nil || f == nil {
		return nil, "", err
	}
	return f, filepath.Join(top, filepath.FromSlash(f.Dir())), nil
}

// withProject returns the functionConfig with the project's options where it sets none.
func withProject(cfg *RenderConfig, f *project.File) (*RenderConfig, error) {
	if f == nil {
		return cfg, nil
	}
	if _, err := Request(f.Config); err != nil {
		return nil, fmt.Errorf("project file %s: %w", f.Shown, err)
	}
	opts, err := project.Overlay(f.Config.Options, cfg.Options)
	if err != nil {
		return nil, fmt.Errorf("%s: options: %w", f.Shown, err)
	}
	out := *cfg
	out.Options = opts
	return &out, nil
}

// projectBindings binds the project's catalogs that the functionConfig does not bind, each
// relative to the project file and inside the repository.
func (b *binder) projectBindings(cfg *RenderConfig, f *project.File, dir string) ([]inputs.Binding, error) {
	if f == nil {
		return nil, nil
	}
	var out []inputs.Binding
	var problems diag.Problems
	for i, c := range f.Config.Catalogs {
		if slices.ContainsFunc(cfg.Catalogs, func(o CatalogBinding) bool { return o.Namespace == c.Namespace && o.Name == c.Name }) {
			continue
		}
		binding := inputs.Binding{Namespace: c.Namespace, Name: c.Name, Path: c.Path, Priority: c.Priority,
			Origin: diag.Origin{File: f.Shown}, Field: fmt.Sprintf("catalogs[%d].path", i)}
		if !strings.HasPrefix(c.Path, inputs.ImagePrefix) {
			root, err := b.open(b.bound)
			if err != nil {
				return nil, err
			}
			name, err := root.Rel(filepath.Join(dir, filepath.FromSlash(c.Path)))
			if err != nil {
				problems.Errorf(diag.Origin{File: f.Shown}, project.Kind, binding.Field,
					"catalog path %q is outside %s, the repository the function reads from: keep catalog snapshots inside it", c.Path, root.Path("."))
				continue
			}
			binding.Root, binding.Path = root, name
		}
		out = append(out, binding)
	}
	return out, problems.Err()
}

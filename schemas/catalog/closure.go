package catalog

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/operator-framework/api/pkg/constraints"
)

// Closure returns the named packages and every package of c their bundles may depend on,
// transitively: the package of each olm.package.required, every package providing an
// olm.gvk.required, and the packages and GVKs named inside olm.constraint properties. A CEL
// constraint can be met by any bundle, so it cannot be followed: each is reported in unfollowed
// ("bundle: rule"). Names not in c are an error.
func Closure(c *Catalog, names []string) (packages, unfollowed []string, err error) {
	providers := gvkProviders(c)
	keep := map[string]bool{}
	queue := slices.Clone(names)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if keep[name] {
			continue
		}
		p := c.Package(name)
		if p == nil {
			return nil, nil, fmt.Errorf("package %q is not in the catalog", name)
		}
		keep[name] = true
		for _, b := range p.Bundles {
			deps, cel := bundleDependencies(b, providers)
			queue = append(queue, deps...)
			unfollowed = append(unfollowed, cel...)
		}
	}
	packages = make([]string, 0, len(keep))
	for name := range keep {
		packages = append(packages, name)
	}
	slices.Sort(packages)
	slices.Sort(unfollowed)
	return packages, slices.Compact(unfollowed), nil
}

// gvkProviders maps each GVK to the packages whose bundles provide it.
func gvkProviders(c *Catalog) map[GVKValue][]string {
	out := map[GVKValue][]string{}
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			for _, prop := range b.PropertiesOf(TypeGVK) {
				var g GVKValue
				if json.Unmarshal(prop.Value, &g) == nil && !slices.Contains(out[g], p.Name) {
					out[g] = append(out[g], p.Name)
				}
			}
		}
	}
	return out
}

// bundleDependencies lists the packages a bundle's requirements may be met by, and its CEL rules.
func bundleDependencies(b *Bundle, providers map[GVKValue][]string) (pkgs, cel []string) {
	for _, prop := range b.Properties {
		switch prop.Type {
		case TypePackageRequired:
			var v PackageRequiredValue
			if json.Unmarshal(prop.Value, &v) == nil {
				pkgs = append(pkgs, v.PackageName)
			}
		case TypeGVKRequired:
			var g GVKValue
			if json.Unmarshal(prop.Value, &g) == nil {
				pkgs = append(pkgs, providers[g]...)
			}
		case TypeConstraint:
			c, err := constraints.Parse(prop.Value)
			if err != nil {
				continue
			}
			p, rules := constraintDependencies(c, providers)
			pkgs = append(pkgs, p...)
			for _, r := range rules {
				cel = append(cel, b.Name+": "+r)
			}
		}
	}
	return pkgs, cel
}

// constraintDependencies walks a (compound) constraint.
func constraintDependencies(c constraints.Constraint, providers map[GVKValue][]string) (pkgs, cel []string) {
	switch {
	case c.Package != nil:
		return []string{c.Package.PackageName}, nil
	case c.GVK != nil:
		return providers[GVKValue{Group: c.GVK.Group, Version: c.GVK.Version, Kind: c.GVK.Kind}], nil
	case c.Cel != nil:
		return nil, []string{c.Cel.Rule}
	}
	for _, compound := range []*constraints.CompoundConstraint{c.All, c.Any} {
		if compound == nil {
			continue
		}
		for _, sub := range compound.Constraints {
			p, r := constraintDependencies(sub, providers)
			pkgs, cel = append(pkgs, p...), append(cel, r...)
		}
	}
	return pkgs, cel
}

// Subset returns a catalog holding only the named packages of c (shared, not copied).
func Subset(c *Catalog, names []string) *Catalog {
	out := &Catalog{Path: c.Path, Image: c.Image, Format: c.Format, Others: c.Others}
	for _, p := range c.Packages {
		if slices.Contains(names, p.Name) {
			out.Packages = append(out.Packages, p)
		}
	}
	return out
}

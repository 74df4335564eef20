package inputs

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

// Binding binds a catalog snapshot to a CatalogSource identity (from --catalog
// NAMESPACE/NAME=PATH, or a RenderConfig).
type Binding struct {
	Namespace, Name, Path string
	// Priority overrides the CatalogSource's spec.priority when set.
	Priority *int
}

// ParseBinding parses NAMESPACE/NAME=PATH.
func ParseBinding(s string) (Binding, error) {
	id, path, ok := strings.Cut(s, "=")
	ns, name, ok2 := strings.Cut(id, "/")
	if !ok || !ok2 || ns == "" || name == "" || path == "" || strings.Contains(name, "/") {
		return Binding{}, fmt.Errorf("invalid --catalog %q: want NAMESPACE/NAME=PATH", s)
	}
	return Binding{Namespace: ns, Name: name, Path: path}, nil
}

// LoadOptions control loading.
type LoadOptions struct {
	// Catalogs create or override catalog bindings.
	Catalogs []Binding
	// LoadCatalog loads a snapshot; catalog.Load when nil.
	LoadCatalog func(path string) (*catalog.Catalog, error)
}

// FromItems builds a Set from objects already read (the KRM function reads them from a
// ResourceList), validates it and binds and loads its catalogs.
func FromItems(items []Item, opts LoadOptions) (*Set, error) {
	s := &Set{}
	var problems diag.Problems
	bound := boundPaths(items, opts)
	for _, it := range items {
		if underAny(it.Origin.File, bound) {
			continue // a catalog snapshot inside an input directory is not input
		}
		s.add(it, &problems)
	}
	s.validate(&problems)
	s.bindCatalogs(opts, &problems)
	s.checkSubscriptionSources(&problems)
	s.Warnings = problems.Warnings().Sorted()
	if err := problems.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// boundPaths lists the absolute snapshot paths the items and options bind.
func boundPaths(items []Item, opts LoadOptions) []string {
	var out []string
	for _, it := range items {
		if kindOf(it.Object) != "CatalogSource" {
			continue
		}
		if p := it.Object.GetAnnotations()[CatalogAnnotation]; p != "" {
			out = append(out, absPath(resolveRelative(it.Origin.File, p)))
		}
	}
	for _, b := range opts.Catalogs {
		out = append(out, absPath(b.Path))
	}
	return out
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func underAny(file string, dirs []string) bool {
	if file == "" {
		return false
	}
	f := absPath(file)
	for _, d := range dirs {
		if f == d || strings.HasPrefix(f, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolveRelative resolves p relative to the directory of the file that declares it.
func resolveRelative(file, p string) string {
	if filepath.IsAbs(p) || file == "" {
		return p
	}
	return filepath.Join(filepath.Dir(file), p)
}

// validate checks names, namespaces, duplicates and the fields a render needs.
func (s *Set) validate(problems *diag.Problems) {
	type key struct{ kind, ns, name string }
	seen := map[key]diag.Origin{}
	check := func(kind, ns, name string, origin diag.Origin, namespaced bool) {
		obj := kind + "/" + name
		if ns != "" {
			obj = kind + "/" + ns + "/" + name
		}
		switch {
		case name == "":
			problems.Errorf(origin, kind, "metadata.name", "required")
		case namespaced && ns == "":
			problems.Errorf(origin, obj, "metadata.namespace", "required: olm-render assumes no default namespace")
		case !namespaced && ns != "":
			problems.Errorf(origin, obj, "metadata.namespace", "must be empty: %s is cluster-scoped", kind)
		}
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			if name != "" {
				problems.Errorf(origin, obj, "metadata.name", "invalid name: %s", msg)
			}
		}
		k := key{kind, ns, name}
		if first, dup := seen[k]; dup {
			problems.Errorf(origin, obj, "", "declared twice (first in %s)", first)
		} else {
			seen[k] = origin
		}
	}
	for _, n := range s.Namespaces {
		check("Namespace", n.Namespace.Namespace, n.Name, n.Origin, false)
	}
	for _, og := range s.OperatorGroups {
		check("OperatorGroup", og.Namespace, og.Name, og.Origin, true)
	}
	for _, sub := range s.Subscriptions {
		check("Subscription", sub.Namespace, sub.Name, sub.Origin, true)
		obj := "Subscription/" + sub.Namespace + "/" + sub.Name
		if sub.Spec == nil {
			problems.Errorf(sub.Origin, obj, "spec", "required")
			continue
		}
		for _, f := range []struct{ field, value string }{
			{"spec.name", sub.Spec.Package},
			{"spec.source", sub.Spec.CatalogSource},
			{"spec.sourceNamespace", sub.Spec.CatalogSourceNamespace},
		} {
			if f.value == "" {
				problems.Errorf(sub.Origin, obj, f.field, "required")
			}
		}
		if a := sub.Spec.InstallPlanApproval; a != "" && a != "Automatic" && a != "Manual" {
			problems.Errorf(sub.Origin, obj, "spec.installPlanApproval", "must be Automatic or Manual, got %q", a)
		}
	}
	for _, cs := range s.CatalogSources {
		check("CatalogSource", cs.Namespace, cs.Name, cs.Origin, true)
	}
	for _, c := range s.OLMConfigs {
		check("OLMConfig", c.Namespace, c.Name, c.Origin, false)
		if c.Name != "" && c.Name != "cluster" {
			problems.Warnf(c.Origin, "OLMConfig/"+c.Name, "metadata.name", `OLM reads only the OLMConfig named "cluster"; this one is ignored`)
		}
	}
	for _, c := range s.OperatorConditions {
		check("OperatorCondition", c.Namespace, c.Name, c.Origin, true)
	}
}

// bindCatalogs binds a snapshot to every annotated CatalogSource and every option binding
// (which overrides), and loads each once.
func (s *Set) bindCatalogs(opts LoadOptions, problems *diag.Problems) {
	load := opts.LoadCatalog
	if load == nil {
		load = catalog.Load
	}
	bindings := map[string]*Catalog{}
	for _, cs := range s.CatalogSources {
		c := &Catalog{Name: cs.Name, Namespace: cs.Namespace, Priority: cs.Spec.Priority, Source: cs}
		if p := cs.Annotations[CatalogAnnotation]; p != "" {
			c.Path = resolveRelative(cs.Origin.File, p)
		}
		bindings[c.Key()] = c
	}
	for _, b := range opts.Catalogs {
		c := bindings[b.Namespace+"/"+b.Name]
		if c == nil {
			c = &Catalog{Name: b.Name, Namespace: b.Namespace}
			bindings[c.Key()] = c
		}
		c.Path = b.Path
		if b.Priority != nil {
			c.Priority = *b.Priority
		}
	}
	loaded := map[string]*catalog.Catalog{}
	for _, c := range bindings {
		if c.Path == "" {
			continue // unbound: an error only if a Subscription uses it
		}
		abs := absPath(c.Path)
		cat, ok := loaded[abs]
		if !ok {
			var err error
			if cat, err = load(c.Path); err != nil {
				s.catalogProblem(c, err, problems)
			}
			loaded[abs] = cat
		}
		if cat == nil {
			continue
		}
		c.Catalog = cat
		s.Catalogs = append(s.Catalogs, c)
	}
	slices.SortFunc(s.Catalogs, func(a, b *Catalog) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}

func (s *Set) catalogProblem(c *Catalog, err error, problems *diag.Problems) {
	ps := diag.From(err)
	if len(ps) == 1 && ps[0].Origin.File == "" && ps[0].Object == "" {
		// A bare error: say which binding it came from.
		p := diag.Problem{Severity: diag.Error, Object: "CatalogSource/" + c.Key(),
			Message: fmt.Sprintf("loading catalog snapshot %s: %s", c.Path, ps[0].Message)}
		if c.Source != nil {
			p.Origin = c.Source.Origin
			p.Field = "metadata.annotations[" + CatalogAnnotation + "]"
		}
		problems.Add(p)
		return
	}
	*problems = append(*problems, ps...)
}

// checkSubscriptionSources reports Subscriptions whose CatalogSource has no snapshot.
func (s *Set) checkSubscriptionSources(problems *diag.Problems) {
	for _, sub := range s.Subscriptions {
		if sub.Spec == nil || sub.Spec.CatalogSource == "" || sub.Spec.CatalogSourceNamespace == "" {
			continue
		}
		if s.Catalog(sub.Spec.CatalogSourceNamespace, sub.Spec.CatalogSource) != nil {
			continue
		}
		key := sub.Spec.CatalogSourceNamespace + "/" + sub.Spec.CatalogSource
		problems.Errorf(sub.Origin, "Subscription/"+sub.Namespace+"/"+sub.Name, "spec.source",
			"no catalog snapshot is bound to CatalogSource %s: declare it with the annotation %s: <path>, or pass --catalog %s=PATH",
			key, CatalogAnnotation, key)
	}
}

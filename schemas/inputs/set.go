package inputs

import (
	"cmp"
	"fmt"
	"io"
	"k8s.io/apimachinery/pkg/api/equality"
	"maps"
	"slices"
	"strings"

	apipath "k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// Binding binds a catalog snapshot to a CatalogSource identity (from --catalog
// NAMESPACE/NAME=PATH, or a RenderConfig).
type Binding struct {
	Namespace, Name string
	// Path is an OS path (absolute, or relative to the working directory) inside the root, or
	// oci://REF for an index image; with Root, a name inside Root.
	Path string
	// Root, when set, is the root the snapshot is read from instead of the load's (the KRM
	// function reads each catalog inside the kustomization that declares it).
	Root *rootfs.Dir
	// Priority overrides the CatalogSource's spec.priority when set.
	Priority *int
	// Origin and Field say where the binding was declared, for messages; "--catalog NS/NAME"
	// (the command line) when Field is empty.
	Origin diag.Origin
	Field  string
}

// ImagePrefix marks a catalog given as an image reference: oci://REF.
const ImagePrefix = "oci://"

// ParseBinding parses NAMESPACE/NAME=PATH.
func ParseBinding(s string) (Binding, error) {
	id, path, ok := strings.Cut(s, "=")
	ns, name, ok2 := strings.Cut(id, "/")
	if !ok || !ok2 || ns == "" || name == "" || path == "" || strings.Contains(name, "/") {
		return Binding{}, fmt.Errorf("invalid --catalog %q: want NAMESPACE/NAME=PATH or NAMESPACE/NAME=oci://IMAGE", s)
	}
	return Binding{Namespace: ns, Name: name, Path: path}, nil
}

// Source is where a catalog snapshot comes from: a file or directory inside the root, or an
// image in a registry.
type Source struct {
	// Path is the snapshot's name inside the root (Root when set, else the load's).
	Path string
	// Root is the root Path is read from, when not the load's.
	Root *rootfs.Dir
	// Image is an index image reference (without oci://).
	Image string
}

// String shows the source as users write it.
func (s Source) String() string {
	switch {
	case s.Image != "":
		return ImagePrefix + s.Image
	case s.Root != nil:
		return s.Root.Path(s.Path)
	}
	return s.Path
}

// LoadFunc loads the catalog snapshot of a source; paths are read from root.
type LoadFunc func(root rootfs.FS, src Source) (*catalog.Catalog, error)

// LoadOptions control loading.
type LoadOptions struct {
	// Root confines every read: inputs and catalog snapshots given by path must be inside it. Load
	// opens the working directory when nil.
	Root *rootfs.Dir
	// Stdin is read for the input path "-".
	Stdin io.Reader
	// Strict makes every problem of the inputs an error.
	Strict bool
	// AllowUnknownFields makes the unknown fields of the kinds a render interprets
	// (Subscriptions, OperatorGroups, CatalogSources, OLMConfigs, OperatorConditions) warnings;
	// they are errors otherwise (a misspelt spec.installPlanApproval would render as Automatic).
	AllowUnknownFields bool
	// LoadRestrictor is kustomize's load restrictor for kustomizations among the inputs;
	// LoadRestrictionsRootOnly when empty. Reads stay inside Root either way.
	LoadRestrictor LoadRestrictor
	// Catalogs create or override catalog bindings.
	Catalogs []Binding
	// LoadCatalog loads a snapshot; when nil, paths are loaded with catalog.LoadFS and images
	// are an error.
	LoadCatalog LoadFunc
	// Prepare, when set, is called with the decoded and validated inputs before any catalog is
	// loaded (the pipeline configures image pulls with the inputs' mirrors there).
	Prepare func(*Set) error
}

// root returns the root to read from, opening the working directory when none is set, and a
// function that closes what it opened.
func (o LoadOptions) root() (*rootfs.Dir, func(), error) {
	if o.Root != nil {
		return o.Root, func() {}, nil
	}
	d, err := rootfs.OpenDir(".", rootfs.Limits{})
	if err != nil {
		return nil, nil, err
	}
	return d, func() { d.Close() }, nil
}

// unknownFields is the severity of an unknown field of a kind a render interprets.
func (o LoadOptions) unknownFields() diag.Severity {
	if o.AllowUnknownFields && !o.Strict {
		return diag.Warning
	}
	return diag.Error
}

// loadCatalog loads a source with the options' loader.
func (o LoadOptions) loadCatalog(src Source) (*catalog.Catalog, error) {
	root := rootfs.FS(o.Root)
	if src.Root != nil {
		root = src.Root
	}
	if o.LoadCatalog != nil {
		return o.LoadCatalog(root, src)
	}
	if src.Image != "" {
		return nil, fmt.Errorf("catalog image %s: this command does not pull images", src.Image)
	}
	return catalog.LoadFS(root, src.Path)
}

// FromItems builds a Set from objects already read (the KRM function reads them from a
// ResourceList), validates it and binds and loads its catalogs. Catalog snapshots given by path
// are read from opts.Root, which must be set when any is.
func FromItems(items []Item, opts LoadOptions) (*Set, error) {
	s := &Set{}
	var problems diag.Problems
	bound := boundPaths(items, opts)
	for _, it := range items {
		if underAny(it.File, bound) {
			if selfBound(it) {
				problems.Errorf(it.Origin, "CatalogSource/"+it.Object.GetNamespace()+"/"+it.Object.GetName(), "metadata.annotations["+CatalogAnnotation+"]",
					"binds the directory holding this CatalogSource's own file as its catalog snapshot: a snapshot is not read as input, so the inputs beside it are lost; point it at the catalog's own directory")
			}
			continue // a catalog snapshot inside an input directory is not input
		}
		s.add(it, opts.unknownFields(), &problems)
	}
	s.validate(&problems)
	s.checkNamespaces(&problems)
	if opts.Strict {
		problems = promote(problems)
	}
	if opts.Prepare != nil && problems.Err() == nil {
		if err := opts.Prepare(s); err != nil {
			problems = append(problems, diag.From(err)...)
		}
	}
	s.bindCatalogs(opts, &problems)
	s.checkSubscriptionSources(&problems)
	s.Warnings = problems.Warnings().Sorted()
	if err := problems.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// boundPaths lists the snapshot names (inside the root) the items and options bind.
func boundPaths(items []Item, opts LoadOptions) []string {
	var out []string
	for _, it := range items {
		if kindOf(it.Object) != "CatalogSource" {
			continue
		}
		if p := it.Object.GetAnnotations()[CatalogAnnotation]; p != "" && !strings.HasPrefix(p, ImagePrefix) {
			if name, err := rootfs.Join(it.base(), p); err == nil {
				out = append(out, name)
			}
		}
	}
	for _, b := range opts.Catalogs {
		if b.Root == nil && opts.Root != nil && !strings.HasPrefix(b.Path, ImagePrefix) {
			if name, err := opts.Root.Rel(b.Path); err == nil {
				out = append(out, name)
			}
		}
	}
	return out
}

// selfBound reports whether an item is a CatalogSource whose annotation binds a directory
// holding its own file.
func selfBound(it Item) bool {
	if kindOf(it.Object) != "CatalogSource" {
		return false
	}
	p := it.Object.GetAnnotations()[CatalogAnnotation]
	if p == "" || strings.HasPrefix(p, ImagePrefix) {
		return false
	}
	name, err := rootfs.Join(it.base(), p)
	return err == nil && underAny(it.File, []string{name})
}

func underAny(file string, dirs []string) bool {
	if file == "" {
		return false
	}
	for _, d := range dirs {
		if file == d || d == "." || strings.HasPrefix(file, d+"/") {
			return true
		}
	}
	return false
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
		nameRule := validation.IsDNS1123Subdomain
		if kind == "Namespace" {
			nameRule = validation.IsDNS1123Label
		}
		for _, msg := range nameRule(name) {
			if name != "" {
				problems.Errorf(origin, obj, "metadata.name", "invalid name: %s", msg)
			}
		}
		for _, msg := range validation.IsDNS1123Label(ns) {
			if ns != "" {
				problems.Errorf(origin, obj, "metadata.namespace", "invalid namespace: %s", msg)
			}
		}
		k := key{kind, ns, name}
		if first, dup := seen[k]; dup {
			problems.Errorf(origin, obj, "metadata.name", "declared twice (first in %s): rename one, or remove one", first)
		} else {
			seen[k] = origin
		}
	}
	for _, n := range s.Namespaces {
		check("Namespace", n.Namespace.Namespace, n.Name, n.Origin, false)
	}
	for _, og := range s.OperatorGroups {
		check("OperatorGroup", og.Namespace, og.Name, og.Origin, true)
		for i, t := range og.Spec.TargetNamespaces {
			for _, msg := range validation.IsDNS1123Label(t) {
				problems.Errorf(og.Origin, "OperatorGroup/"+og.Namespace+"/"+og.Name, fmt.Sprintf("spec.targetNamespaces[%d]", i), "invalid namespace %q: %s", t, msg)
			}
		}
		if sa := og.Spec.ServiceAccountName; sa != "" {
			for _, msg := range validation.IsDNS1123Subdomain(sa) {
				problems.Errorf(og.Origin, "OperatorGroup/"+og.Namespace+"/"+og.Name, "spec.serviceAccountName", "invalid name %q: %s", sa, msg)
			}
		}
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
		validateConfig(sub, problems)
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
	s.Others = validateOthers(s.Others, problems)
}

// validateOthers checks the identity of the objects passed through as the API server would:
// a name it can store (or generateName), a namespace that can exist, and each object once. An
// object declared again with the same content is one object, passed through once: oc-mirror
// writes its signature ConfigMap both as signature-configmap.json and .yaml. It returns the
// objects to pass through.
func validateOthers(others []*Object, problems *diag.Problems) []*Object {
	type key struct{ group, kind, ns, name string }
	seen := map[key]diag.Origin{}
	firsts := map[key]*Object{}
	kept := make([]*Object, 0, len(others))
	for _, o := range others {
		name, ns, kind := o.GetName(), o.GetNamespace(), o.GetKind()
		obj := kind + "/" + name
		if ns != "" {
			obj = kind + "/" + ns + "/" + name
		}
		switch {
		case name == "" && o.GetGenerateName() == "":
			problems.Errorf(o.Origin, kind, "metadata.name", "required")
		case name != "":
			for _, msg := range apipath.IsValidPathSegmentName(name) {
				problems.Errorf(o.Origin, obj, "metadata.name", "invalid name %q: %s", name, msg)
			}
		}
		for _, msg := range validation.IsDNS1123Label(ns) {
			if ns != "" {
				problems.Errorf(o.Origin, obj, "metadata.namespace", "invalid namespace: %s", msg)
			}
		}
		if name == "" {
			kept = append(kept, o)
			continue
		}
		k := key{o.GroupVersionKind().Group, kind, ns, name}
		first, dup := seen[k]
		switch {
		case !dup:
			seen[k], firsts[k] = o.Origin, o
		case equality.Semantic.DeepEqual(firsts[k].Object, o.Object):
			continue
		default:
			problems.Errorf(o.Origin, obj, "metadata.name", "declared twice, with other content (first in %s): rename one, or remove one", first)
		}
		kept = append(kept, o)
	}
	return kept
}

// bindCatalogs binds a snapshot to every CatalogSource that names one (the annotation, else
// spec.image) and every option binding (which overrides), and loads each source once.
func (s *Set) bindCatalogs(opts LoadOptions, problems *diag.Problems) {
	bindings := map[string]*Catalog{}
	for _, cs := range s.CatalogSources {
		c := &Catalog{Name: cs.Name, Namespace: cs.Namespace, Priority: cs.Spec.Priority, Source: cs}
		c.From, c.err = sourceOf(cs)
		bindings[c.Key()] = c
	}
	for _, b := range opts.Catalogs {
		if p, ok := s.unmatchedBinding(b); ok {
			problems.Add(p)
			continue
		}
		c := bindings[b.Namespace+"/"+b.Name]
		if c == nil {
			c = &Catalog{Name: b.Name, Namespace: b.Namespace}
			bindings[c.Key()] = c
		}
		c.From, c.err = bindingSource(opts.Root, b)
		c.declared = &b
		if b.Priority != nil {
			c.Priority = *b.Priority
		}
	}
	loaded := map[Source]*catalog.Catalog{}
	for _, key := range slices.Sorted(maps.Keys(bindings)) {
		c := bindings[key]
		if c.err != nil {
			s.catalogProblem(c, nil, c.err, problems)
			continue
		}
		if c.From == (Source{}) {
			continue // unbound: an error only if a Subscription uses it
		}
		cat, ok := loaded[c.From]
		if !ok {
			var err error
			if cat, err = opts.loadCatalog(c.From); err != nil {
				s.catalogProblem(c, opts.rootOf(c.From), err, problems)
			}
			loaded[c.From] = cat
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

// sourceOf returns the snapshot a CatalogSource names: its olm-render.dev/catalog annotation (a
// path relative to the declaring file, or oci://REF), else its spec.image.
func sourceOf(cs *CatalogSource) (Source, error) {
	p := cs.Annotations[CatalogAnnotation]
	switch {
	case strings.HasPrefix(p, ImagePrefix):
		return imageSource(p)
	case p != "":
		name, err := rootfs.Join(cs.base, p)
		if err != nil {
			return Source{}, fmt.Errorf("catalog path %q leaves the root: keep catalog snapshots inside the repository (or pass --root)", p)
		}
		return Source{Path: name}, nil
	case cs.Spec.Image != "":
		return Source{Image: cs.Spec.Image}, nil
	}
	return Source{}, nil
}

// imageSource is the image an oci://REF binding names.
func imageSource(p string) (Source, error) {
	ref := strings.TrimPrefix(p, ImagePrefix)
	if strings.TrimSpace(ref) == "" {
		return Source{}, fmt.Errorf("%q names no image: want oci://REGISTRY/REPOSITORY:TAG or @sha256:DIGEST", p)
	}
	return Source{Image: ref}, nil
}

// bindingSource returns the snapshot a --catalog binding names.
func bindingSource(root *rootfs.Dir, b Binding) (Source, error) {
	if strings.HasPrefix(b.Path, ImagePrefix) {
		return imageSource(b.Path)
	}
	if b.Root != nil {
		return Source{Path: b.Path, Root: b.Root}, nil
	}
	if root == nil {
		return Source{}, fmt.Errorf("catalog path %q: no root directory to read it from", b.Path)
	}
	name, err := root.Rel(b.Path)
	if err != nil {
		return Source{}, fmt.Errorf("catalog path %q is outside the root %s: pass --root with a directory that holds it", b.Path, root.Path("."))
	}
	return Source{Path: name}, nil
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
		if cs := s.catalogSource(key); cs != nil && (cs.Annotations[CatalogAnnotation] != "" || cs.Spec.Image != "") {
			problems.Errorf(sub.Origin, "Subscription/"+sub.Namespace+"/"+sub.Name, "spec.source",
				"CatalogSource %s%s has no usable catalog snapshot: fix the error reported for it", key, declaredIn(cs.Origin))
			continue
		}
		msg := fmt.Sprintf("no catalog snapshot is bound to CatalogSource %s: declare it with spec.image or the annotation %s: <path>, or pass --catalog %s=PATH",
			key, CatalogAnnotation, key)
		if cs := s.catalogSource(key); cs != nil {
			msg = fmt.Sprintf("CatalogSource %s%s names no catalog: give it spec.image or the annotation %s: <path>, or pass --catalog %s=PATH",
				key, declaredIn(cs.Origin), CatalogAnnotation, key)
		} else if near := diag.Closest(key, s.catalogKeys()); near != "" && near != key {
			msg += fmt.Sprintf("; did you mean CatalogSource %s?", near)
		}
		problems.Errorf(sub.Origin, "Subscription/"+sub.Namespace+"/"+sub.Name, "spec.source", "%s", msg)
	}
}

// declaredIn shows where an object was declared, " (file)", or "" when that is not known.
func declaredIn(o diag.Origin) string {
	if o.File == "" {
		return ""
	}
	return " (" + o.String() + ")"
}

// catalogSource returns the declared CatalogSource namespace/name, or nil. One that names a
// snapshot but is not bound failed to load, with an error of its own.
func (s *Set) catalogSource(key string) *CatalogSource {
	for _, cs := range s.CatalogSources {
		if cs.Namespace+"/"+cs.Name == key {
			return cs
		}
	}
	return nil
}

// catalogKeys lists the declared and bound CatalogSources.
func (s *Set) catalogKeys() []string {
	var out []string
	for _, cs := range s.CatalogSources {
		out = append(out, cs.Namespace+"/"+cs.Name)
	}
	for _, c := range s.Catalogs {
		out = append(out, c.Key())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkNamespaces warns about the namespaces Subscriptions and OperatorGroups use that the inputs
// do not declare: the rendered objects need them to exist.
func (s *Set) checkNamespaces(problems *diag.Problems) {
	if len(s.Namespaces) == 0 {
		return // the namespaces are managed elsewhere
	}
	declared := map[string]bool{}
	for _, n := range s.Namespaces {
		declared[n.Name] = true
	}
	warn := func(origin diag.Origin, obj, field, ns string) {
		if ns != "" && !declared[ns] {
			msg := fmt.Sprintf("namespace %s is not declared in the inputs: the rendered objects need it (declare the Namespace, unless the cluster already has it)", ns)
			if near := diag.Closest(ns, slices.Sorted(maps.Keys(declared))); near != "" {
				msg += fmt.Sprintf("; did you mean %s?", near)
			}
			problems.Warnf(origin, obj, field, "%s", msg)
		}
	}
	for _, sub := range s.Subscriptions {
		warn(sub.Origin, "Subscription/"+sub.Namespace+"/"+sub.Name, "metadata.namespace", sub.Namespace)
	}
	for _, og := range s.OperatorGroups {
		for i, t := range og.Spec.TargetNamespaces {
			warn(og.Origin, "OperatorGroup/"+og.Namespace+"/"+og.Name, fmt.Sprintf("spec.targetNamespaces[%d]", i), t)
		}
	}
}

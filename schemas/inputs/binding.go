package inputs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// unmatchedBinding refuses a binding (--catalog, a RenderConfig's catalogs[i]) for a
// CatalogSource that no input declares and no Subscription names: it binds a catalog nothing
// uses, and the CatalogSource it was meant to override (a typo of its name) keeps its own
// snapshot, so the render would silently not be the one asked for.
func (s *Set) unmatchedBinding(b Binding) (diag.Problem, bool) {
	key := b.Namespace + "/" + b.Name
	if s.catalogSource(key) != nil || s.namedBySubscription(key) {
		return diag.Problem{}, false
	}
	declared := s.declaredKeys()
	msg := fmt.Sprintf("no CatalogSource %s is declared in the inputs and no Subscription names it, so this binding would be ignored", key)
	if near := diag.Closest(key, declared); near != "" {
		msg = fmt.Sprintf("no CatalogSource %s: did you mean %s? (no CatalogSource of that name is declared in the inputs and no Subscription names it, so this binding would be ignored)", key, near)
	}
	switch {
	case len(declared) == 0:
		msg += "; the inputs declare no CatalogSource"
	default:
		msg += "; CatalogSources declared: " + strings.Join(declared, ", ")
	}
	return diag.Problem{Severity: diag.Error, Origin: b.Origin, Object: "CatalogSource/" + key, Field: bindingField(b), Message: msg}, true
}

// bindingField names where a binding was declared: its RenderConfig field, or the flag as given.
func bindingField(b Binding) string {
	path := b.Path
	switch {
	case b.Field != "":
		return b.Field
	case b.Root != nil:
		path = b.Root.Path(b.Path)
	}
	return "--catalog " + b.Namespace + "/" + b.Name + "=" + path
}

// namedBySubscription reports whether a declared Subscription names the CatalogSource key.
func (s *Set) namedBySubscription(key string) bool {
	for _, sub := range s.Subscriptions {
		if sub.Spec != nil && sub.Spec.CatalogSourceNamespace+"/"+sub.Spec.CatalogSource == key {
			return true
		}
	}
	return false
}

// declaredKeys lists the declared CatalogSources, "namespace/name", sorted.
func (s *Set) declaredKeys() []string {
	var out []string
	for _, cs := range s.CatalogSources {
		out = append(out, cs.Namespace+"/"+cs.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rootOf is the root a source's path is read from, or nil.
func (o LoadOptions) rootOf(src Source) rootfs.FS {
	switch {
	case src.Root != nil:
		return src.Root
	case o.Root != nil:
		return o.Root
	}
	return nil
}

// display shows a snapshot source as messages name it: its path as users would type it, or
// oci://REF.
func display(root rootfs.FS, src Source) string {
	if src.Image != "" || root == nil {
		return src.String()
	}
	return root.Path(src.Path)
}

// catalogProblem reports why a binding's snapshot cannot be used. What concerns the binding
// itself (a bare error, or one about the snapshot path as a whole: it does not exist, cannot be
// read, holds no catalog) is reported where the binding was declared, naming the CatalogSource,
// its file and the annotation, flag or RenderConfig entry; problems inside the snapshot keep
// the file and object they name. root is the root the snapshot was read from (nil when the
// binding is invalid before any read).
func (s *Set) catalogProblem(c *Catalog, root rootfs.FS, err error, problems *diag.Problems) {
	shown := ""
	if root != nil || c.From.Image != "" {
		shown = display(root, c.From)
	}
	for _, p := range diag.From(err) {
		if p.Object != "" || (p.Origin.File != "" && p.Origin.File != shown) {
			problems.Add(p)
			continue
		}
		msg := p.Message
		switch {
		case p.Origin.File != "":
			msg = p.Origin.String() + ": " + msg
		case shown != "":
			msg = "loading catalog snapshot " + shown + ": " + msg
		}
		problems.Add(s.bindingProblem(c, msg+c.missingPathHint(root, err)))
	}
}

// bindingProblem is a problem of a catalog binding, reported where it was declared: the
// --catalog flag or RenderConfig entry that overrides the CatalogSource, else the
// CatalogSource's annotation (or spec.image).
func (s *Set) bindingProblem(c *Catalog, msg string) diag.Problem {
	p := diag.Problem{Severity: diag.Error, Object: "CatalogSource/" + c.Key(), Message: msg}
	switch {
	case c.declared != nil:
		p.Origin, p.Field = c.declared.Origin, bindingField(*c.declared)
		if c.declared.Field == "" && c.Source != nil {
			p.Message += fmt.Sprintf("; the flag overrides the catalog of CatalogSource %s%s", c.Key(), declaredIn(c.Source.Origin))
		}
	case c.Source != nil:
		p.Origin = c.Source.Origin
		p.Field = "metadata.annotations[" + CatalogAnnotation + "]"
		if c.From.Image != "" && c.Source.Annotations[CatalogAnnotation] == "" {
			p.Field = "spec.image"
		}
	}
	return p
}

// missingPathHint says, for a snapshot path that does not exist, which directory beside it is
// close to it and, for an annotation, what the path is relative to; "" otherwise.
func (c *Catalog) missingPathHint(root rootfs.FS, err error) string {
	if c.From.Path == "" || !errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), "no such file or directory") {
		return ""
	}
	var hint string
	if near := nearPath(root, c.From.Path); near != "" {
		hint = ": did you mean " + near + "?"
	}
	if c.declared == nil && c.Source != nil {
		hint += fmt.Sprintf(" (the annotation's %q is relative to the directory of the file declaring the CatalogSource)", c.Source.Annotations[CatalogAnnotation])
	}
	return hint
}

// nearPath suggests the directory beside name (in root) whose name is closest to name's, as
// users see it, or "".
func nearPath(root rootfs.FS, name string) string {
	if root == nil {
		return ""
	}
	entries, err := root.ReadDir(path.Dir(name))
	if err != nil {
		return ""
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	near := diag.Closest(path.Base(name), names)
	if near == "" {
		return ""
	}
	return root.Path(path.Join(path.Dir(name), near))
}

// BoundBy names what bound the catalog's snapshot to its CatalogSource, as the user wrote it:
// the --catalog flag, a RenderConfig's catalogs entry, or the CatalogSource's annotation or
// spec.image.
func (c *Catalog) BoundBy() string {
	switch {
	case c.declared != nil && c.declared.Field != "":
		return c.declared.Field + " of " + c.declared.Origin.String()
	case c.declared != nil:
		return bindingField(*c.declared)
	case c.Source != nil && c.Source.Annotations[CatalogAnnotation] != "":
		return "the " + CatalogAnnotation + " annotation"
	}
	return "spec.image"
}

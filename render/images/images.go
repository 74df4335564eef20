// Package images lists every container image a render needs — the index images its catalogs come
// from, the bundle images of the chosen bundles, the operators' own images and their
// relatedImages — so a disconnected cluster can mirror exactly what it will run, dependencies
// included. It writes the list as plain text or as an oc-mirror ImageSetConfiguration.
package images

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/registry"
)

// Kind says why an image is needed.
type Kind string

// The kinds of images a render needs.
const (
	Index    Kind = "index"
	Bundle   Kind = "bundle"
	Operator Kind = "operator"
	Related  Kind = "related"
)

// Image is one image a render needs.
type Image struct {
	// Ref is the reference, by digest when the catalog or the lock gives one.
	Ref string `json:"ref"`
	// Kinds say why it is needed, sorted.
	Kinds []Kind `json:"kinds"`
	// Bundles are the bundles that need it, sorted (empty for index images).
	Bundles []string `json:"bundles,omitempty"`
}

// Pinned reports whether the reference names a digest.
func (i Image) Pinned() bool { return registry.IsPinned(i.Ref) }

// List returns the images of a resolution: the index image of every catalog a chosen bundle comes
// from, and each chosen bundle's image, operator images and relatedImages. The bundles' manifests
// are read (bundle images are pulled when the catalog carries only metadata).
func List(res *resolver.Result) ([]Image, error) {
	l := &lister{byRef: map[string]*Image{}}
	for _, ns := range res.Namespaces {
		for _, s := range ns.Selections {
			if err := l.selection(s); err != nil {
				return nil, err
			}
		}
	}
	return l.sorted(), nil
}

type lister struct {
	byRef map[string]*Image
}

func (l *lister) add(ref string, kind Kind, bundle string) {
	if ref == "" {
		return
	}
	img := l.byRef[ref]
	if img == nil {
		img = &Image{Ref: ref}
		l.byRef[ref] = img
	}
	if !slices.Contains(img.Kinds, kind) {
		img.Kinds = append(img.Kinds, kind)
	}
	if bundle != "" && !slices.Contains(img.Bundles, bundle) {
		img.Bundles = append(img.Bundles, bundle)
	}
}

func (l *lister) selection(s *resolver.Selection) error {
	b := s.Bundle
	l.add(IndexImage(s.Catalog), Index, "")
	m, err := b.Manifests()
	if err != nil {
		return fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	l.add(cmp.Or(b.PinnedImage(), b.Image), Bundle, b.Name)
	for _, d := range m.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		for _, c := range append(d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers...) {
			l.add(c.Image, Operator, b.Name)
		}
	}
	for _, ri := range m.CSV.Spec.RelatedImages {
		l.add(ri.Image, Related, b.Name)
	}
	for _, ri := range b.RelatedImages {
		l.add(ri.Image, Related, b.Name)
	}
	return nil
}

func (l *lister) sorted() []Image {
	out := make([]Image, 0, len(l.byRef))
	for _, img := range l.byRef {
		slices.Sort(img.Kinds)
		slices.Sort(img.Bundles)
		out = append(out, *img)
	}
	slices.SortFunc(out, func(a, b Image) int { return cmp.Compare(a.Ref, b.Ref) })
	return out
}

// IndexImage returns the index image, by digest, a bound catalog was read from: the image it was
// pulled from, or the one a vendored snapshot (olm-render catalog pull) records; "" for a
// snapshot that never came from an index image.
func IndexImage(c *inputs.Catalog) string {
	if c == nil || c.Catalog == nil {
		return ""
	}
	if c.Catalog.Image != "" {
		return c.Catalog.Image
	}
	return vendoredFrom(c.Catalog)
}

// vendoredFrom reads the origin a vendored snapshot records.
func vendoredFrom(c *catalog.Catalog) string {
	for _, raw := range c.Others {
		var src registry.Source
		if json.Unmarshal(raw, &src) == nil && src.Schema == registry.SourceSchema {
			return src.Image
		}
	}
	return ""
}

// Text writes one image a line: the reference, then its kinds.
func Text(list []Image) string {
	var b strings.Builder
	for _, img := range list {
		kinds := make([]string, len(img.Kinds))
		for i, k := range img.Kinds {
			kinds[i] = string(k)
		}
		fmt.Fprintf(&b, "%s\t%s\n", img.Ref, strings.Join(kinds, ","))
	}
	return b.String()
}

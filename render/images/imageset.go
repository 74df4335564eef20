package images

import (
	"cmp"
	"fmt"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/resolver"
)

// imageSetConfiguration is oc-mirror v2's ImageSetConfiguration (mirror.openshift.io/v2alpha1),
// the part olm-render writes.
type imageSetConfiguration struct {
	Kind       string      `json:"kind"`
	APIVersion string      `json:"apiVersion"`
	Mirror     imageSetMir `json:"mirror"`
}

type imageSetMir struct {
	Operators        []operatorCatalog `json:"operators,omitempty"`
	AdditionalImages []namedImage      `json:"additionalImages,omitempty"`
}

type operatorCatalog struct {
	Catalog  string            `json:"catalog"`
	Packages []operatorPackage `json:"packages"`
}

type operatorPackage struct {
	Name     string            `json:"name"`
	Channels []operatorChannel `json:"channels"`
}

type operatorChannel struct {
	Name       string `json:"name"`
	MinVersion string `json:"minVersion"`
	MaxVersion string `json:"maxVersion"`
}

type namedImage struct {
	Name string `json:"name"`
}

// ImageSetConfiguration writes an oc-mirror ImageSetConfiguration that mirrors exactly the
// render's operators: per index image, each chosen package at exactly its chosen version in its
// channel (dependencies included, since they are chosen too); oc-mirror then mirrors those
// bundles and their relatedImages. Images it would not reach that way — everything of a catalog
// that did not come from an index image, and operator images a bundle does not list among its
// relatedImages — are additionalImages.
func ImageSetConfiguration(res *resolver.Result, list []Image) ([]byte, error) {
	cfg := imageSetConfiguration{Kind: "ImageSetConfiguration", APIVersion: "mirror.openshift.io/v2alpha1"}
	covered := map[string]bool{}
	catalogs := map[string]map[string]operatorChannel{}
	for _, ns := range res.Namespaces {
		for _, s := range ns.Selections {
			index := IndexImage(s.Catalog)
			if index == "" {
				continue
			}
			if catalogs[index] == nil {
				catalogs[index] = map[string]operatorChannel{}
			}
			v := s.Bundle.Version.String()
			catalogs[index][s.Bundle.Package] = operatorChannel{Name: s.Channel, MinVersion: v, MaxVersion: v}
			markCovered(covered, s)
		}
	}
	for _, index := range sortedKeys(catalogs) {
		oc := operatorCatalog{Catalog: index}
		for _, pkg := range sortedKeys(catalogs[index]) {
			oc.Packages = append(oc.Packages, operatorPackage{Name: pkg, Channels: []operatorChannel{catalogs[index][pkg]}})
		}
		cfg.Mirror.Operators = append(cfg.Mirror.Operators, oc)
	}
	for _, img := range list {
		if !covered[img.Ref] && !slices.Contains(img.Kinds, Index) {
			cfg.Mirror.AdditionalImages = append(cfg.Mirror.AdditionalImages, namedImage{Name: img.Ref})
		}
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encoding the ImageSetConfiguration: %w", err)
	}
	return data, nil
}

// markCovered records the images oc-mirror mirrors for a bundle it mirrors from an index: the
// bundle image and its relatedImages (the catalog's, and the CSV's).
func markCovered(covered map[string]bool, s *resolver.Selection) {
	covered[cmp.Or(s.Bundle.PinnedImage(), s.Bundle.Image)] = true
	for _, ri := range s.Bundle.RelatedImages {
		covered[ri.Image] = true
	}
	if m, err := s.Bundle.Manifests(); err == nil {
		for _, ri := range m.CSV.Spec.RelatedImages {
			covered[ri.Image] = true
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

package inputs

import (
	"encoding/json"
	"fmt"

	"github.com/olm-render/olm-render/schemas/diag"
)

// ImageMirror redirects pulls by digest of the repositories under Source to Mirrors.
type ImageMirror struct {
	Source  string
	Mirrors []string
	// Tags marks an ImageTagMirrorSet's mirror: it applies to pulls by tag, where the others
	// apply to pulls by digest.
	Tags bool
	// NeverContactSource forbids falling back to Source.
	NeverContactSource bool
	// Object names the declaring object (Kind/name) and Origin its file.
	Object string
	Origin diag.Origin
}

// The OpenShift objects that declare mirrors: by digest (IDMS, ICSP) and by tag (ITMS).
const (
	kindIDMS = "ImageDigestMirrorSet"     // config.openshift.io/v1
	kindICSP = "ImageContentSourcePolicy" // operator.openshift.io/v1alpha1
	kindITMS = "ImageTagMirrorSet"        // config.openshift.io/v1
)

// mirrorSpec is the part of an ImageDigestMirrorSet or ImageContentSourcePolicy spec olm-render
// reads.
type mirrorSpec struct {
	ImageDigestMirrors      []mirrorEntry `json:"imageDigestMirrors"`
	RepositoryDigestMirrors []mirrorEntry `json:"repositoryDigestMirrors"`
	ImageTagMirrors         []mirrorEntry `json:"imageTagMirrors"`
}

type mirrorEntry struct {
	Source             string   `json:"source"`
	Mirrors            []string `json:"mirrors"`
	MirrorSourcePolicy string   `json:"mirrorSourcePolicy"`
}

// addMirrors records the mirrors of an ImageDigestMirrorSet, ImageContentSourcePolicy or
// ImageTagMirrorSet.
func (s *Set) addMirrors(it Item, problems *diag.Problems) {
	gvk := it.Object.GroupVersionKind()
	var entries func(mirrorSpec) []mirrorEntry
	tags := false
	switch {
	case gvk.Group == "config.openshift.io" && gvk.Kind == kindIDMS:
		entries = func(m mirrorSpec) []mirrorEntry { return m.ImageDigestMirrors }
	case gvk.Group == "operator.openshift.io" && gvk.Kind == kindICSP:
		entries = func(m mirrorSpec) []mirrorEntry { return m.RepositoryDigestMirrors }
	case gvk.Group == "config.openshift.io" && gvk.Kind == kindITMS:
		entries, tags = func(m mirrorSpec) []mirrorEntry { return m.ImageTagMirrors }, true
	default:
		return
	}
	var obj struct {
		Spec mirrorSpec `json:"spec"`
	}
	data, err := json.Marshal(it.Object.Object)
	if err == nil {
		err = json.Unmarshal(data, &obj)
	}
	if err != nil {
		problems.Add(decodeProblem(it, &obj, err))
		return
	}
	name := gvk.Kind + "/" + it.Object.GetName()
	for i, e := range entries(obj.Spec) {
		if e.Source == "" {
			problems.Errorf(it.Origin, name, fmt.Sprintf("spec[%d].source", i), "required")
			continue
		}
		s.ImageMirrors = append(s.ImageMirrors, ImageMirror{Source: e.Source, Mirrors: e.Mirrors, Tags: tags,
			NeverContactSource: e.MirrorSourcePolicy == "NeverContactSource", Object: name, Origin: it.Origin})
	}
}

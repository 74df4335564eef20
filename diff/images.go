package diff

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ImageChange is an image that changed, appeared or disappeared.
type ImageChange struct {
	// Object is "Deployment/namespace/name", or "relatedImages" for the CSV's related images.
	Object string `json:"object"`
	// Container is the container's name, or the related image's name.
	Container string `json:"container"`
	// Init is true for an init container.
	Init bool `json:"init,omitempty"`
	// From is the image before ("" when added); To the image after ("" when removed).
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// String reads "Deployment/ops/etcd-operator container etcd-operator: A → B", with "added: B"
// or "removed: A" for images that appear or disappear.
func (c ImageChange) String() string {
	what := "container "
	switch {
	case c.Object == relatedImagesObject:
		what = ""
	case c.Init:
		what = "init container "
	}
	return c.Object + " " + what + c.Container + ": " + c.change()
}

// change reads "A → B", "added: B" or "removed: A".
func (c ImageChange) change() string {
	switch {
	case c.From == "":
		return "added " + c.To
	case c.To == "":
		return "removed " + c.From
	}
	return c.From + " → " + c.To
}

const relatedImagesObject = "relatedImages"

// imageChanges compares the images of the Deployments each CSV of the pair owns, matched by
// Deployment name and container name.
func imageChanges(p csvPair, before, after map[Key]*unstructured.Unstructured) []ImageChange {
	old := ownedDeployments(before, p.Namespace, p.From)
	cur := ownedDeployments(after, p.Namespace, p.To)
	var out []ImageChange
	for _, name := range unionSorted(sortedKeys(old), sortedKeys(cur)) {
		object := Key{Group: "apps", Kind: "Deployment", Namespace: p.Namespace, Name: name}.String()
		for _, init := range []bool{false, true} {
			out = append(out, compareImages(object, init, containerImages(old[name], init), containerImages(cur[name], init))...)
		}
	}
	return out
}

// ownedDeployments returns the Deployments of namespace whose olm.owner labels name the CSV, by
// name.
func ownedDeployments(objs map[Key]*unstructured.Unstructured, namespace, csv string) map[string]*unstructured.Unstructured {
	out := map[string]*unstructured.Unstructured{}
	for k, u := range objs {
		if k.Group == "apps" && k.Kind == "Deployment" && k.Namespace == namespace && ownerOf(u) == (ownerRef{namespace, csv}) {
			out[k.Name] = u
		}
	}
	return out
}

// containerImages returns the image of each container (or init container) by name.
func containerImages(u *unstructured.Unstructured, init bool) map[string]string {
	out := map[string]string{}
	if u == nil {
		return out
	}
	field := "containers"
	if init {
		field = "initContainers"
	}
	list, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", field)
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			name, _ := m["name"].(string)
			image, _ := m["image"].(string)
			out[name] = image
		}
	}
	return out
}

// compareImages lists the names whose image differs between old and cur, sorted by name.
func compareImages(object string, init bool, old, cur map[string]string) []ImageChange {
	var out []ImageChange
	for _, name := range unionSorted(sortedKeys(old), sortedKeys(cur)) {
		if old[name] != cur[name] {
			out = append(out, ImageChange{Object: object, Container: name, Init: init, From: old[name], To: cur[name]})
		}
	}
	return out
}

// relatedImageChanges compares spec.relatedImages of the pair's CSVs, by name (or by image for
// unnamed entries).
func relatedImageChanges(p csvPair) []ImageChange {
	return compareImages(relatedImagesObject, false, relatedImages(p.before), relatedImages(p.after))
}

// relatedImages returns a CSV's related images by name; an unnamed image is its own name.
func relatedImages(csv *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	list, _, _ := unstructured.NestedSlice(csv.Object, "spec", "relatedImages")
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			image, _ := m["image"].(string)
			name, _ := m["name"].(string)
			out[cmp.Or(name, image)] = image
		}
	}
	return out
}

// unionSorted returns the distinct values of a and b, sorted.
func unionSorted(a, b []string) []string {
	return distinctSorted(slices.Concat(a, b))
}

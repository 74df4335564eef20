package importer

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/olm-render/olm-render/resolver/lock"
)

// digestPattern matches a manifest digest at the end of an image reference.
var digestPattern = regexp.MustCompile(`@(sha256:[0-9a-f]{64})$`)

// digestOf returns the digest an image reference names ("repo@sha256:..."), else "".
func digestOf(ref string) string {
	m := digestPattern.FindStringSubmatch(ref)
	if m == nil {
		return ""
	}
	return m[1]
}

// catalogPin returns the lock's pin of a CatalogSource given by image: the digest spec.image
// names, else the one its running catalog pods report. When the cluster does not tell one
// digest, it returns a pin without digest and why.
func (s *snapshot) catalogPin(cs *catalogSource) (lock.CatalogPin, string) {
	pin := lock.CatalogPin{Namespace: cs.Namespace, Name: cs.Name, Image: cs.Spec.Image, Digest: digestOf(cs.Spec.Image)}
	if pin.Digest != "" {
		return pin, ""
	}
	digests := podDigests(s.catalogPods[qualified(cs.Namespace, cs.Name)])
	switch len(digests) {
	case 0:
		return pin, fmt.Sprintf("no running catalog pod (label %s=%s) that the import may list reports the digest of %s: the lock pins the digest the tag points to when the catalog is read, which may not be what the cluster runs",
			catalogSourceLabel, cs.Name, cs.Spec.Image)
	case 1:
		pin.Digest = digests[0]
		return pin, ""
	}
	return pin, fmt.Sprintf("its catalog pods run different digests of %s (%s), as while a polled catalog updates: the lock pins the digest the tag points to when the catalog is read; import again once one pod runs",
		cs.Spec.Image, strings.Join(digests, ", "))
}

// podDigests returns the digests the registry containers of running pods report, sorted and
// unique. A pod's imageID names the manifest the node pulled ("repo@sha256:...", possibly behind a
// docker-pullable:// scheme); an image ID without repository (a local image) tells none.
func podDigests(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
			continue
		}
		for _, c := range registryStatuses(p) {
			if d := digestOf(c.ImageID); d != "" {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// registryStatuses returns the status of the pod's registry-server container, or of every
// container when none has that name.
func registryStatuses(p *corev1.Pod) []corev1.ContainerStatus {
	for _, c := range p.Status.ContainerStatuses {
		if c.Name == registryContainer {
			return []corev1.ContainerStatus{c}
		}
	}
	return p.Status.ContainerStatuses
}

// catalogPins returns the pins, with a digest, of the CatalogSources given by image, sorted.
func (s *snapshot) catalogPins() []lock.CatalogPin {
	var out []lock.CatalogPin
	for _, cs := range s.catalogSources {
		if cs.Spec.Image == "" {
			continue
		}
		if pin, _ := s.catalogPin(cs); pin.Digest != "" {
			out = append(out, pin)
		}
	}
	slices.SortFunc(out, func(a, b lock.CatalogPin) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

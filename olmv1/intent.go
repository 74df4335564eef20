package olmv1

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// The OLM v1 API.
const (
	// APIVersion is the group and version of ClusterCatalog and ClusterExtension.
	APIVersion = "olm.operatorframework.io/v1"
	// CatalogNameLabel is the label catalogd's webhook sets on every ClusterCatalog, its name
	// (internal/catalogd/webhook/cluster_catalog_webhook.go): a ClusterExtension selects its
	// catalog by it.
	CatalogNameLabel = "olm.operatorframework.io/metadata.name"
	// OwnerKindLabel and OwnerNameLabel are the labels operator-controller's applier sets on
	// every object it creates (controllers/clusterextension_reconcile_steps.go ApplyBundle).
	OwnerKindLabel = "olm.operatorframework.io/owner-kind"
	OwnerNameLabel = "olm.operatorframework.io/owner-name"
	// maxExtensionName is the longest Helm release name, which operator-controller's default
	// applier names after the ClusterExtension.
	maxExtensionName = 53
)

// clusterCatalogNames names the ClusterCatalog of each declared CatalogSource: its name, or
// <name>-<namespace> where CatalogSources of several namespaces share the name (a ClusterCatalog
// is cluster-scoped).
func clusterCatalogNames(set *inputs.Set) map[string]string {
	count := map[string]int{}
	for _, cs := range set.CatalogSources {
		count[cs.Name]++
	}
	out := map[string]string{}
	for _, cs := range set.CatalogSources {
		name := cs.Name
		if count[cs.Name] > 1 {
			name = cs.Name + "-" + cs.Namespace
		}
		out[cs.Namespace+"/"+cs.Name] = name
	}
	return out
}

// catalogImage returns the image a CatalogSource's ClusterCatalog serves: spec.image's
// repository by the digest olm-render read the catalog at (pulled, or recorded by olm-render
// catalog pull in a vendored snapshot), so that catalogd serves the bytes the render resolved
// against. A CatalogSource with no image, or whose digest cannot be known, is an error; one
// whose repository is not where the catalog was read from (nor a mirror of it) a warning.
func catalogImage(set *inputs.Set, cs *inputs.CatalogSource) (string, diag.Problems, error) {
	where := "CatalogSource " + cs.Namespace + "/" + cs.Name
	if o := cs.Origin.String(); o != "" {
		where = o + ": " + where
	}
	if cs.Spec.Image == "" {
		return "", nil, fmt.Errorf("%s: a ClusterCatalog serves an index image (spec.source.image.ref), and this CatalogSource has none (spec.address, spec.configMap or a snapshot only): set spec.image to the index image its snapshot was pulled from (olm-render catalog pull), or keep it under OLM v0", where)
	}
	bound := set.Catalog(cs.Namespace, cs.Name)
	read, how := bound.ReadAt()
	declared := inputs.ImageDigest(cs.Spec.Image)
	switch {
	case read == "" && declared != "":
		return cs.Spec.Image, nil, nil
	case read == "":
		return "", nil, fmt.Errorf("%s: spec.image %s is a tag, and olm-render read this catalog from %s, which records no index digest: catalogd would serve whatever the tag names when it polls; vendor the snapshot with olm-render catalog pull (it records the index digest, which the render then pins), bind the CatalogSource by its image, or set spec.image to a digest",
			where, cs.Spec.Image, bound.SnapshotOf())
	case declared != "" && declared != read:
		return "", nil, fmt.Errorf("%s: spec.image pins %s, but olm-render read this catalog at %s (%s): catalogd would serve another index than the one the render resolved against; drop the digest from spec.image (the render pins what it read), or refresh the catalog",
			where, declared, read, how)
	}
	var warnings diag.Problems
	own, from := inputs.ImageRepository(cs.Spec.Image), inputs.ImageRepository(bound.ReadFrom())
	if !set.Related(own, from) {
		warnings.Warnf(cs.Origin, "CatalogSource/"+cs.Namespace+"/"+cs.Name, "spec.image",
			"the catalog was %s, but spec.image names %s, which no ImageDigestMirrorSet or ImageContentSourcePolicy among the inputs mirrors: the ClusterCatalog pins %s by that digest, so make sure it holds that index (a mirror of %s)",
			how, own, own, from)
	}
	return own + "@" + read, warnings, nil
}

// clusterCatalog is a CatalogSource as a ClusterCatalog: its image by digest, its priority,
// and the name label catalogd sets (so that GitOps sees no drift).
func clusterCatalog(name, image string, cs *inputs.CatalogSource) *unstructured.Unstructured {
	spec := map[string]any{"source": map[string]any{"type": "Image", "image": map[string]any{"ref": image}}}
	if cs.Spec.Priority != 0 {
		spec["priority"] = int64(cs.Spec.Priority)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": APIVersion, "kind": "ClusterCatalog",
		"metadata": map[string]any{"name": name, "labels": map[string]any{CatalogNameLabel: name}},
		"spec":     spec,
	}}
}

// extension is what a ClusterExtension says of one Subscription.
type extension struct {
	name, namespace, pkg, version, channel, catalog string
	// watch is the watched namespace of Own and Single ("" for all).
	watch string
	// config is the deploymentConfig, nil when none.
	config map[string]any
	// serviceAccount names the installer ServiceAccount ("" from v1.11).
	serviceAccount string
}

// object returns the ClusterExtension: pinned to the locked version, on its channel, from its
// catalog alone, upgrading only along the catalog's edges.
func (e extension) object() *unstructured.Unstructured {
	catalog := map[string]any{
		"packageName":             e.pkg,
		"version":                 e.version,
		"selector":                map[string]any{"matchLabels": map[string]any{CatalogNameLabel: e.catalog}},
		"upgradeConstraintPolicy": "CatalogProvided",
	}
	if e.channel != "" {
		catalog["channels"] = []any{e.channel}
	}
	spec := map[string]any{
		"namespace": e.namespace,
		"source":    map[string]any{"sourceType": "Catalog", "catalog": catalog},
	}
	if e.serviceAccount != "" {
		spec["serviceAccount"] = map[string]any{"name": e.serviceAccount}
	}
	if inline := e.inline(); inline != nil {
		spec["config"] = map[string]any{"configType": "Inline", "inline": inline}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": APIVersion, "kind": "ClusterExtension",
		"metadata": map[string]any{"name": e.name},
		"spec":     spec,
	}}
}

// inline is the inline configuration: watchNamespace and deploymentConfig, nil when neither.
func (e extension) inline() map[string]any {
	out := map[string]any{}
	if e.watch != "" {
		out["watchNamespace"] = e.watch
	}
	if len(e.config) > 0 {
		out["deploymentConfig"] = e.config
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// deploymentConfig returns a Subscription's spec.config as v1's deploymentConfig: every field
// but selector (v1 has none; OLM v0 never used it). It reports whether selector was set.
func deploymentConfig(sub *inputs.Subscription) (map[string]any, *v1alpha1.SubscriptionConfig, bool, error) {
	if sub.Spec == nil || sub.Spec.Config == nil {
		return nil, nil, false, nil
	}
	c := sub.Spec.Config.DeepCopy()
	selector := c.Selector != nil
	c.Selector = nil
	data, err := json.Marshal(c)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: Subscription %s/%s: spec.config: %w", sub.Origin, sub.Namespace, sub.Name, err)
	}
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return nil, nil, false, fmt.Errorf("%s: Subscription %s/%s: spec.config: %w", sub.Origin, sub.Namespace, sub.Name, err)
	}
	if len(m) == 0 {
		return nil, nil, selector, nil
	}
	// What operator-controller decodes from the inline JSON (config.GetDeploymentConfig).
	var typed v1alpha1.SubscriptionConfig
	if err := json.Unmarshal(data, &typed); err != nil {
		return nil, nil, false, fmt.Errorf("%s: Subscription %s/%s: spec.config: %w", sub.Origin, sub.Namespace, sub.Name, err)
	}
	return m, &typed, selector, nil
}

// ownerLabels adds the labels operator-controller's applier sets on what it creates.
func ownerLabels(u *unstructured.Unstructured, extension string) {
	labels := maps.Clone(u.GetLabels())
	if labels == nil {
		labels = map[string]string{}
	}
	labels[OwnerKindLabel] = "ClusterExtension"
	labels[OwnerNameLabel] = extension
	u.SetLabels(labels)
}

// sortedKeys returns a map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// Package inputs loads what a user declares for a render: Namespaces, OperatorGroups,
// Subscriptions, CatalogSources, OLMConfigs and OperatorConditions from files and directories,
// plus every other object to pass through untouched; and binds each CatalogSource to a catalog
// snapshot on disk.
//
// # Catalog bindings
//
// A CatalogSource annotated olm-render.dev/catalog: <path> is bound to the snapshot at that path
// (relative to the file that declares it). The command line's --catalog NAMESPACE/NAME=PATH
// creates or overrides a binding.
package inputs

import (
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

// CatalogAnnotation binds a CatalogSource to a snapshot path.
const CatalogAnnotation = "olm-render.dev/catalog"

// Set is everything a render reads, typed. Each list is in load order (files sorted by path,
// documents in file order).
type Set struct {
	Namespaces         []*Namespace
	OperatorGroups     []*OperatorGroup
	Subscriptions      []*Subscription
	CatalogSources     []*CatalogSource
	OLMConfigs         []*OLMConfig
	OperatorConditions []*OperatorCondition
	// Others are objects of any other kind, passed through untouched.
	Others []*Object
	// ImageMirrors are the digest mirrors of the ImageDigestMirrorSets and
	// ImageContentSourcePolicies among Others, in load order: pulls of catalog and bundle images
	// go through them, as OpenShift nodes' pulls do.
	ImageMirrors []ImageMirror
	// Catalogs are the bound snapshots, sorted by namespace then name.
	Catalogs []*Catalog
	// Warnings are problems in the inputs that do not fail the run.
	Warnings diag.Problems
}

// Namespace is a declared Namespace.
type Namespace struct {
	corev1.Namespace
	Origin diag.Origin
}

// OperatorGroup is a declared OperatorGroup; v1alpha2 objects are converted to v1 (the
// Origin's apiVersion is kept in SourceAPIVersion).
type OperatorGroup struct {
	operatorsv1.OperatorGroup
	SourceAPIVersion string
	Origin           diag.Origin
}

// Subscription is a declared Subscription.
type Subscription struct {
	v1alpha1.Subscription
	Origin diag.Origin
	// Generated marks a Subscription OLM created for a dependency, as the lock records it (not
	// declared by the user).
	Generated bool
}

// CatalogSource is a declared CatalogSource.
type CatalogSource struct {
	v1alpha1.CatalogSource
	Origin diag.Origin
	// base is the directory inside the root its relative catalog path resolves against.
	base string
}

// OLMConfig is a declared OLMConfig (OLM reads only the one named "cluster").
type OLMConfig struct {
	operatorsv1.OLMConfig
	Origin diag.Origin
}

// OperatorCondition is a declared operators.coreos.com/v2 OperatorCondition.
type OperatorCondition struct {
	operatorsv2.OperatorCondition
	Origin diag.Origin
}

// Object is any other object, untouched.
type Object struct {
	*unstructured.Unstructured
	Origin diag.Origin
}

// Catalog is a catalog snapshot bound to a CatalogSource identity.
type Catalog struct {
	// Name and Namespace identify the CatalogSource (spec.source / spec.sourceNamespace of a
	// Subscription).
	Name, Namespace string
	// Priority is the CatalogSource's spec.priority (0 when unset).
	Priority int
	// From is where the snapshot was loaded from.
	From Source
	// Source is the declaring CatalogSource, nil when bound only on the command line.
	Source *CatalogSource
	// Catalog is the loaded snapshot.
	Catalog *catalog.Catalog

	err      error    // why the binding is invalid
	declared *Binding // the binding that overrides its CatalogSource, if any
}

// Key returns "namespace/name".
func (c *Catalog) Key() string { return c.Namespace + "/" + c.Name }

// Catalog returns the binding for namespace/name, or nil.
func (s *Set) Catalog(namespace, name string) *Catalog {
	for _, c := range s.Catalogs {
		if c.Namespace == namespace && c.Name == name {
			return c
		}
	}
	return nil
}

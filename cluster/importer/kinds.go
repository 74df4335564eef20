package importer

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/olm-render/olm-render/schemas/inputs"
)

const operatorsGroup = "operators.coreos.com"

// The resources Read lists.
var (
	namespacesGVR     = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	podsGVR           = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	subscriptionsGVR  = schema.GroupVersionResource{Group: operatorsGroup, Version: "v1alpha1", Resource: "subscriptions"}
	catalogSourcesGVR = schema.GroupVersionResource{Group: operatorsGroup, Version: "v1alpha1", Resource: "catalogsources"}
	csvsGVR           = schema.GroupVersionResource{Group: operatorsGroup, Version: "v1alpha1", Resource: "clusterserviceversions"}
	installPlansGVR   = schema.GroupVersionResource{Group: operatorsGroup, Version: "v1alpha1", Resource: "installplans"}
	operatorGroupsGVR = schema.GroupVersionResource{Group: operatorsGroup, Version: "v1", Resource: "operatorgroups"}
	olmConfigsGVR     = schema.GroupVersionResource{Group: operatorsGroup, Version: "v1", Resource: "olmconfigs"}
	conditionsGVR     = schema.GroupVersionResource{Group: operatorsGroup, Version: "v2", Resource: "operatorconditions"}
)

// Labels OLM sets.
const (
	// copiedFromLabel marks a copied CSV with the namespace of the CSV it copies.
	copiedFromLabel = "olm.copiedFrom"
	// catalogSourceLabel marks a catalog pod with the name of its CatalogSource.
	catalogSourceLabel = "olm.catalogSource"
	// registryContainer is the name of the catalog pod's container that serves the index.
	registryContainer = "registry-server"
)

// catalogAnnotation binds a CatalogSource to a catalog snapshot in olm-render's inputs.
const catalogAnnotation = inputs.CatalogAnnotation

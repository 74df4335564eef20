// Package importer reads what OLM installed in a live cluster and turns it into olm-render's
// inputs and lock, so that the first render of the import reproduces the cluster and changes
// nothing in it.
//
// # What is read
//
// [Read] lists, with a dynamic client, the Subscriptions, OperatorGroups and CatalogSources of the
// namespaces asked for (every namespace by default), the CatalogSources their Subscriptions name
// in other namespaces, the OLMConfig, the installed ClusterServiceVersions (not the copies OLM
// writes into target namespaces, labelled olm.copiedFrom), the InstallPlans that wait for
// approval, the catalog pods (to learn the digest of the index image each CatalogSource runs) and
// the Namespaces that hold any of these, that an OperatorGroup targets, or that hold a copy of an
// installed CSV (a render copies CSVs into the Namespaces it is given).
//
// # What is kept
//
// The inputs are the objects as the user declared them: status, the metadata the API server
// manages (uid, resourceVersion, generation, creationTimestamp, managedFields, ownerReferences)
// and what OLM or the cluster added are dropped: the component labels operators.coreos.com/*,
// the olm.operatorgroup.uid/* labels of target Namespaces, the olm.providedAPIs annotation of
// OperatorGroups whose provided APIs are not static, the Namespace label
// kubernetes.io/metadata.name and finalizer "kubernetes", OpenShift's openshift.io/sa.scc.*
// Namespace annotations, kubectl's last-applied-configuration annotation, and an OperatorGroup's
// upgradeStrategy when it is the default the CRD fills in.
//
// The lock pins every Subscription to its status.installedCSV and every CatalogSource given by
// image to the digest its catalog pod runs (the pod's imageID), or that spec.image names. [Read]
// cannot digest the bundles (the cluster does not hold them): [Complete] resolves the imported
// inputs against their catalogs with the installed CSVs pinned, as `olm-render lock` does, and
// fails when a catalog no longer holds an installed CSV.
//
// # Reports
//
// What an import cannot reproduce is reported, never guessed, each [Report] naming the object:
// CSVs that are Failed, being replaced or not yet Succeeded, Subscriptions whose manual
// InstallPlan waits for approval (the pending CSV is the upgrade to accept in a pull request),
// Subscriptions with nothing installed, CatalogSources without spec.image (configMap and address
// sources), CatalogSources whose image digest the cluster does not tell, and CSVs installed
// without a Subscription.
package importer

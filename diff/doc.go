// Package diff compares two renders object by object, the way a reviewer reads a pull request:
// a summary of added, deleted and modified objects, what each operator upgrade changes (images,
// permissions, CRD compatibility, webhooks, dependencies, install modes), then one unified diff
// per object.
//
// # Normalisation
//
// Before comparing, every object is normalised with fluxcd/pkg/ssa's normalize package (the same
// defaulting Flux applies before a dry-run diff), fields named by Options.IgnoreFields are
// removed, and Secret values are masked (ssa.SanitizeUnstructuredData): a Secret's diff shows
// which keys changed, never their values.
//
// # Identity
//
// Objects are matched by group, kind, namespace and name, so an apiVersion change shows as a
// modification. Changes are ordered as ssa.ReconcileOrder orders kinds, then by namespace and name.
//
// # Upgrades and renamed objects
//
// OLM names several objects after the CSV, whose name carries the operator's version: the CSV
// itself, its copies in the target namespaces, the OperatorCondition, and the Roles,
// ClusterRoles and bindings made from the CSV's permissions ("<csv>", or "<csv>-<hash>" and
// "<csv>-<serviceaccount>-<hash>" cut to 63 characters). Matched by name, an upgrade would read
// as every one of them deleted and added again. Instead:
//
//   - An added operator CSV (one without olm.copiedFrom) is paired with the deleted operator CSV
//     of the same namespace it upgrades from: named by spec.replaces, then spec.skips, then
//     covered by the olm.skipRange annotation, then of the same package (the
//     operators.coreos.com/<package>.<namespace> label, else the olm.package property of the
//     operatorframework.io/properties annotation). A modified operator CSV is an upgrade in place.
//   - Every deleted object whose owner is the old CSV, and every added object whose owner is the
//     new CSV, is a candidate. The owner is named by the olm.owner labels (olm.owner.kind
//     ClusterServiceVersion, olm.owner.namespace, else the object's namespace), or else by the
//     object's own namespace and name (the OperatorCondition and its Role and RoleBinding carry
//     no owner labels). Copies of the CSV count as owners in every namespace where a copy of the
//     old CSV was deleted and a copy of the new one added, both copied from the CSV's namespace.
//   - Candidates of the same pair, group, kind and namespace pair up when they concern the same
//     subjects (a binding's subjects, or the subjects of the bindings that refer to a role) and
//     have the same shape of name (exactly the CSV's name, or the CSV's name and a suffix).
//     Among those, names whose middle parts (between the CSV's name and the trailing hash) are
//     equal win, then names where one middle is a prefix of the other, then the most similar
//     contents, then key order.
//
// A pair is one Modified change whose Key is the new key and From the old one; its diff runs
// from the old object to the new one, so the name change shows. What stays unpaired stays a
// deletion or an addition.
//
// # What an upgrade changes
//
// For each upgrade the report lists the container and init container images of the
// Deployments each CSV owns (by Deployment and container name) and the changes to
// spec.relatedImages; the permission changes of the ServiceAccounts the CSVs use (from
// permissions.Compare over every RBAC object of both renders, with a resourceName equal to the
// old CSV's name read as the new one's, since OLM's OperatorCondition rule follows the CSV); the
// CRDs the CSVs own that were added, removed (breaking: pruning them deletes stored objects) or
// changed (judged by crdcompat.Compare); the webhook configurations they own that were added,
// removed or changed in their webhooks (not merely their labels), and the changes to
// spec.webhookdefinitions; the requirements added or dropped (operatorframework.io/properties
// types ending in ".required" and olm.constraint, required CRDs and API services); and the
// install modes whose support changed. Report.Other holds what no upgrade accounts for:
// operator CSVs installed or removed, and the permission, CRD and webhook changes of objects and
// subjects no upgraded CSV owns. Permissions or CRDs that cannot be compared are reported as
// growth and as breaking, so that a gate fails closed.
//
// A paired upgrade whose new CSV has an older spec.version than the old one is a downgrade
// (Upgrade.Downgrade).
//
// # Where OLM keeps running: two parts
//
// A render for a cluster where OLM keeps running (--olm=running) applies the pinned intent and
// holds, marked olm-render.dev/prediction, what OLM will create. When either render holds such
// objects, the report has two parts, each compared on its own as above:
//
//   - Report.Applied: what Git applies (Subscriptions, CatalogSources, the approval contract
//     ConfigMaps, everything passed through): every object not marked.
//   - Report.OLM: what OLM will do. First in words, one OLMChange per Subscription (declared, or
//     generated for a dependency) whose lock moved or whose contract admits or holds something
//     new: "OLM will install kube-green.v0.7.0 → kube-green.v0.7.1 (replaces); approve admits
//     kube-green.v0.7.1; held: kube-green.v0.7.2". The locks and what each contract admits
//     come from the contract ConfigMaps of both renders (else from spec.startingCSV), the step
//     olm-render approve will hold from their olm-render.dev/held annotation, the edge from the
//     prediction's upgrade. A lock that moves back is a refusal ("OLM will not install ...":
//     OLM never downgrades an installed CSV); a Subscription removed leaves its CSV installed.
//     Then the predicted objects: the prediction's changes, upgrades and the rest, as above
//     (Subscriptions OLM generates for dependencies belong here).
//
// A render for a cluster where OLM v1 runs (--olm=v1) is compared the same way; its second part
// is what operator-controller will do (OLMPart.Controller), one OLMChange per ClusterExtension
// whose spec.source.catalog.version moved: "operator-controller will upgrade kube-green 0.7.0 →
// 0.7.1"; a version that goes back is refused unless upgradeConstraintPolicy is SelfCertified
// (the downgrade gate fires either way); a ClusterExtension removed is an uninstall, its CRDs
// and their custom resources deleted with it. operator-controller names its RBAC after the
// bundle, so each upgrade renames it: objects of the same ClusterExtension, kind and subjects
// pair as a CSV upgrade's do.
//
// The report's own Changes, Upgrades and Findings hold both parts', so the gates apply to both.
//
// # Gates
//
// Report.Findings lists why each gate fires (Gate, ParseGates, Report.Check): permission-growth,
// crd-breaking, webhook-change, dependency-change, install-mode-change and downgrade (a paired
// upgrade whose version decreases; where OLM runs, also a Subscription whose lock moves to an
// older CSV of its package); any-change fires for every changed object. Each Finding names the
// operator ("namespace/package") and the object.
//
// # Formats
//
// Text, Markdown and JSON all lead with the summary, the gates that fire and the upgrades
// (images first), then list the objects. Markdown is meant for a pull-request comment (one
// <details> block per object, and long lists within an upgrade collapsed) and stays under a size
// budget: it cuts long diffs and then whole objects, and when the head alone is too long drops
// the list of objects, then all but each upgrade's images, then all but the summary, and says
// so. JSON carries the same data for tools. A report in two parts gives the gates, then what Git
// applies (its counts, upgrades and objects), then what OLM will do (in words, then the
// predicted objects' counts, upgrades and objects); in Markdown the applied objects' diffs come
// first when the budget runs short, and JSON holds the parts as "applied" and "olm".
package diff

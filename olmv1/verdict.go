package olmv1

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/schemas/diag"
)

// Code names, stably, why OLM v1 cannot take a Subscription as it is (or what it needs).
type Code string

// The codes, each after the operator-controller v1.11.0 rule that decides it.
const (
	// CodeDependency: the bundle declares an olm.package.required, olm.gvk.required or
	// olm.constraint property (resolve/validation.go NoDependencyValidation).
	CodeDependency Code = "dependency"
	// CodeDependent: a Subscription OLM v0 generated for another's dependency (the lock's
	// generated entries, an olm.generated-by annotation): v1 never installs dependencies.
	CodeDependent Code = "dependent"
	// CodeAPIService: the CSV owns APIServices (applier/provider.go).
	CodeAPIService Code = "apiservice"
	// CodeInstallMode: the OperatorGroup asks for a watch v1 cannot give (MultiNamespace, a
	// label selector, several OperatorGroups), the bundle does not support it, or it needs
	// SingleOwnNamespaceInstallSupport (applier/provider.go, render/render.go
	// validateTargetNamespaces).
	CodeInstallMode Code = "install-mode"
	// CodeDeploymentConfig: the Subscription's spec.config needs the DeploymentConfig gate.
	CodeDeploymentConfig Code = "deployment-config"
	// CodeNoCertProvider: webhooks, and operator-controller runs with no certificate provider.
	CodeNoCertProvider Code = "no-cert-provider"
	// CodeConversionWebhook: a conversion webhook in a bundle that supports more than
	// AllNamespaces (validators.CheckConversionWebhookSupport).
	CodeConversionWebhook Code = "conversion-webhook"
	// CodeConversionCRD: a conversion webhook names a CRD the CSV does not own, or two name
	// the same CRD (validators.CheckConversionWebhooksReferenceOwnedCRDs,
	// CheckConversionWebhookCRDReferenceUniqueness).
	CodeConversionCRD Code = "conversion-crd"
	// CodeWebhookRules: an admission webhook rule on API group "*", olm.operatorframework.io, or
	// admissionregistration.k8s.io's webhook configurations (validators.CheckWebhookRules).
	CodeWebhookRules Code = "webhook-rules"
	// CodeWebhookDeployment: a webhook names a deployment the CSV does not define
	// (validators.CheckWebhookDeploymentReferentialIntegrity).
	CodeWebhookDeployment Code = "webhook-deployment"
	// CodeWebhookName: two webhooks of one type share a name, or a name is not a DNS-1123
	// subdomain (validators.CheckWebhookNameUniqueness, CheckWebhookNameIsDNS1123SubDomain).
	CodeWebhookName Code = "webhook-name"
	// CodeWebhookPort: a webhook without containerPort: v1 reads the CSV from the bundle, where
	// nothing defaults it to 443, and writes port 0, which the API server refuses.
	CodeWebhookPort Code = "webhook-port"
	// CodeDeploymentName: two deployments share a name, or a name is not a DNS-1123 subdomain
	// (validators.CheckDeploymentSpecUniqueness, CheckDeploymentNameIsDNS1123SubDomain).
	CodeDeploymentName Code = "deployment-name"
	// CodeOwnedCRD: the CSV owns a CRD the bundle does not ship, or the bundle ships one twice
	// (validators.CheckOwnedCRDExistence, CheckCRDResourceUniqueness).
	CodeOwnedCRD Code = "owned-crd"
	// CodePreserveUnknownFields: a CRD behind a conversion webhook keeps
	// spec.preserveUnknownFields: true (generators.BundleCRDGenerator).
	CodePreserveUnknownFields Code = "preserve-unknown-fields"
	// CodeUnsupportedObject: a bundle object of a kind registry+v1 does not support
	// (validators.CheckObjectSupport, operator-registry bundle.IsSupported).
	CodeUnsupportedObject Code = "unsupported-object"
	// CodeLegacyCRD: an apiextensions.k8s.io/v1beta1 CRD, which v1 applies as written and
	// Kubernetes serves only before 1.22.
	CodeLegacyCRD Code = "legacy-crd"
	// CodeOperatorGroupShared: several operators of one OperatorGroup create the same object,
	// which v0 lets them share and v1 gives a single owner (docs/concepts/single-owner-objects.md).
	CodeOperatorGroupShared Code = "operator-group-shared"
	// CodeObjectCollision: operators in different namespaces create the same cluster-scoped
	// object (a CRD, a ClusterRole), which v1 gives a single owner.
	CodeObjectCollision Code = "object-collision"
	// CodeExtensionName: the ClusterExtension named after the Subscription collides with
	// another, or is longer than a Helm release name may be (53 characters).
	CodeExtensionName Code = "extension-name"
	// CodeCatalogSource: the Subscription's CatalogSource cannot become a ClusterCatalog (no
	// image, or no digest to pin it by).
	CodeCatalogSource Code = "catalog-source"
	// CodeManifests: the catalog carries only the bundle's metadata, so olm-render can neither
	// check the bundle against v1's rules nor predict what v1 creates.
	CodeManifests Code = "manifests"
)

// Notes: what changes under v1 without stopping it.
const (
	// NoteNoOperatorGroup: the namespace has no OperatorGroup (v0 fails the CSV); v1 needs none.
	NoteNoOperatorGroup Code = "no-operator-group"
	// NoteSelectorDropped: spec.config.selector, which v1's deploymentConfig does not have.
	NoteSelectorDropped Code = "config-selector"
	// NoteScopedServiceAccount: the OperatorGroup's spec.serviceAccountName, which v1 ignores.
	NoteScopedServiceAccount Code = "scoped-service-account"
	// NoteUpgradeStrategy: the OperatorGroup's spec.upgradeStrategy, which v1 ignores.
	NoteUpgradeStrategy Code = "upgrade-strategy"
	// NoteUndeclaredCatalog: the Subscription's CatalogSource is not among the inputs.
	NoteUndeclaredCatalog Code = "undeclared-catalog"
	// NoteV0Unresolvable: OLM v0 cannot resolve the Subscription's namespace with its bundles'
	// dependencies; it is judged at the bundle OLM v1 would pin, chosen without them
	// (resolver.Options.ForOLMv1), and cannot be left to OLM v0.
	NoteV0Unresolvable Code = "v0-unresolvable"
)

// Outcome is a Subscription's verdict.
type Outcome string

// The outcomes.
const (
	// Eligible: v1 takes the Subscription as it is, with the options given.
	Eligible Outcome = "eligible"
	// NeedsGate: v1 takes it once the gates its reasons name are on.
	NeedsGate Outcome = "needs-gate"
	// Refused: v1 refuses it.
	Refused Outcome = "refused"
)

// Reason is one cause of a verdict: what v1's rule is, and where in the inputs or the bundle
// the user finds what it is about.
type Reason struct {
	Code Code `json:"code"`
	// Gate is the feature gate that would admit it, when one would.
	Gate Gate `json:"gate,omitempty"`
	// Origin is the file that decides: the bundle's (CSV, dependencies.yaml, FBC), or the
	// Subscription's or OperatorGroup's where the user's own object does.
	Origin diag.Origin `json:"origin,omitempty"`
	// Object names the object in Origin, e.g. ClusterServiceVersion/etcdoperator.v0.9.4.
	Object string `json:"object,omitempty"`
	// Field is the field path in Object.
	Field string `json:"field,omitempty"`
	// Message says what is wrong, lower-case.
	Message string `json:"message"`
	// Rule is the operator-controller v1.11.0 code that decides it.
	Rule string `json:"rule,omitempty"`
}

// String formats the reason as "file: object: field: message [code] (rule)".
func (r Reason) String() string {
	p := diag.Problem{Origin: r.Origin, Object: r.Object, Field: r.Field, Message: r.Message}
	s := p.Error() + " [" + string(r.Code) + "]"
	if r.Gate != "" {
		s += " (needs the " + string(r.Gate) + " gate)"
	}
	if r.Rule != "" {
		s += " (operator-controller: " + r.Rule + ")"
	}
	return s
}

// compareReasons orders reasons by code, file, object, field and message.
func compareReasons(a, b Reason) int {
	return cmp.Or(cmp.Compare(a.Code, b.Code), a.Origin.Compare(b.Origin), cmp.Compare(a.Object, b.Object),
		cmp.Compare(a.Field, b.Field), cmp.Compare(a.Message, b.Message))
}

// Verdict is what OLM v1 makes of one Subscription (declared, or generated by OLM v0 for a
// dependency) and the bundle it is locked to.
type Verdict struct {
	Namespace    string      `json:"namespace"`
	Subscription string      `json:"subscription"`
	Origin       diag.Origin `json:"origin,omitempty"`
	// Generated marks a Subscription OLM v0 generated for a dependency.
	Generated bool   `json:"generated,omitempty"`
	Package   string `json:"package"`
	Bundle    string `json:"bundle"`
	Version   string `json:"version"`
	Channel   string `json:"channel,omitempty"`
	// Catalog is the CatalogSource (namespace/name) and ClusterCatalog its ClusterCatalog.
	Catalog        string `json:"catalog,omitempty"`
	ClusterCatalog string `json:"clusterCatalog,omitempty"`
	// ClusterExtension is the name of the ClusterExtension that takes the Subscription over.
	ClusterExtension string `json:"clusterExtension,omitempty"`
	// Mode is the install mode the OperatorGroup asks for, and WatchNamespace the namespace
	// watched in Own and Single.
	Mode           string  `json:"installMode,omitempty"`
	WatchNamespace string  `json:"watchNamespace,omitempty"`
	Outcome        Outcome `json:"verdict"`
	// Reasons are why it is not eligible, sorted; Notes what changes under v1 regardless.
	Reasons []Reason `json:"reasons,omitempty"`
	Notes   []Reason `json:"notes,omitempty"`
}

// ID names the Subscription: namespace/name.
func (v Verdict) ID() string { return v.Namespace + "/" + v.Subscription }

// Gates returns the gates the verdict's reasons need, sorted.
func (v Verdict) Gates() []Gate {
	var out []Gate
	for _, r := range v.Reasons {
		if r.Gate != "" && !slices.Contains(out, r.Gate) {
			out = append(out, r.Gate)
		}
	}
	slices.Sort(out)
	return out
}

// decide sets the outcome from the reasons and sorts them.
func (v *Verdict) decide() {
	slices.SortFunc(v.Reasons, compareReasons)
	v.Reasons = slices.CompactFunc(v.Reasons, func(a, b Reason) bool { return compareReasons(a, b) == 0 })
	slices.SortFunc(v.Notes, compareReasons)
	v.Outcome = Eligible
	for _, r := range v.Reasons {
		if r.Gate == "" {
			v.Outcome = Refused
			return
		}
		v.Outcome = NeedsGate
	}
}

// describe names the Subscription with its file and bundle, for messages.
func (v Verdict) describe() string {
	s := "Subscription " + v.ID()
	if v.Generated {
		s = "Subscription " + v.ID() + " (generated by OLM v0)"
	}
	if o := v.Origin.String(); o != "" {
		s = o + ": " + s
	}
	return s + " (bundle " + v.Bundle + ")"
}

// Refusal is a render that failed because OLM v1 cannot take one or more Subscriptions.
type Refusal struct {
	// Verdicts are the Subscriptions v1 does not take (NeedsGate or Refused), sorted.
	Verdicts []Verdict
}

// Error lists every reason, one a line, each with the Subscription it concerns, and for a
// Subscription OLM v0 cannot resolve either, why.
func (r *Refusal) Error() string {
	var lines []string
	for _, v := range r.Verdicts {
		for _, reason := range v.Reasons {
			lines = append(lines, fmt.Sprintf("%s: OLM v1 cannot take it: %s", v.describe(), reason))
		}
		if note, ok := v.v0Unresolvable(); ok {
			lines = append(lines, fmt.Sprintf("%s: nor can OLM v0: %s", v.describe(), note.Message))
		}
	}
	lines = append(lines, "("+r.Hint()+")")
	return strings.Join(lines, "\n")
}

// Hint says what the user can do: leave the Subscriptions to OLM v0 (--allow-partial) where it
// can resolve them, and otherwise bind what their dependencies need.
func (r *Refusal) Hint() string {
	neither := 0
	for _, v := range r.Verdicts {
		if _, ok := v.v0Unresolvable(); ok {
			neither++
		}
	}
	switch neither {
	case 0:
		return "--olm=v1 --allow-partial leaves these to OLM v0; olm-render migrate check lists every verdict"
	case len(r.Verdicts):
		return "neither OLM installs them: bind a catalog that holds their dependencies, or leave them out; olm-render migrate check lists every verdict"
	}
	return "--olm=v1 --allow-partial leaves to OLM v0 those it can resolve, not those neither OLM installs; olm-render migrate check lists every verdict"
}

// v0Unresolvable returns the note that OLM v0 cannot resolve the Subscription, if it has one.
func (v Verdict) v0Unresolvable() (Reason, bool) {
	i := slices.IndexFunc(v.Notes, func(r Reason) bool { return r.Code == NoteV0Unresolvable })
	if i < 0 {
		return Reason{}, false
	}
	return v.Notes[i], true
}

// Problems returns the refusal as problems, one per reason, for the KRM function's results.
func (r *Refusal) Problems() diag.Problems {
	var out diag.Problems
	for _, v := range r.Verdicts {
		for _, reason := range v.Reasons {
			out.Add(diag.Problem{Severity: diag.Error, Origin: reason.Origin, Object: reason.Object, Field: reason.Field,
				Message: fmt.Sprintf("OLM v1 cannot take Subscription %s: %s [%s]", v.ID(), reason.Message, reason.Code)})
		}
		if note, ok := v.v0Unresolvable(); ok {
			out.Add(diag.Problem{Severity: diag.Error, Origin: note.Origin, Object: note.Object,
				Message: fmt.Sprintf("nor can OLM v0 install Subscription %s: %s [%s]", v.ID(), note.Message, note.Code)})
		}
	}
	return out.Sorted()
}

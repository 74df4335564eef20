package render

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/olm-render/olm-render/render/rbac"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/stored"
)

// OLM's failure reasons and messages (operator-framework/api, OLM operator.go).
const (
	reasonNoOperatorGroup      = "NoOperatorGroup"
	reasonTooManyGroups        = "TooManyOperatorGroups"
	reasonNoTargetNamespaces   = "NoTargetNamespaces"
	reasonUnsupportedGroup     = "UnsupportedOperatorGroup"
	reasonInvalidInstallModes  = "InvalidInstallModes"
	reasonOwnerConflict        = "InterOperatorGroupOwnerConflict"
	reasonStaticAPIs           = "CannotModifyStaticOperatorGroupProvidedAPIs"
	messageNoOperatorGroup     = "csv in namespace with no operatorgroups"
	messageTooManyGroups       = "csv created in namespace with multiple operatorgroups, can't pick one automatically"
	messageNoTargetNamespaces  = "no targetNamespaces are matched operatorgroups namespace selection"
	messageOwnerConflict       = "intersecting operatorgroups provide the same apis"
	messageStaticAPIs          = "static provided api operatorgroup cannot be modified by these apis"
	propertiesAnnotation       = "operatorframework.io/properties"
	managedLabel               = "olm.managed"
	copiedFromLabel            = "olm.copiedFrom"
	componentLabelPrefix       = "operators.coreos.com/"
	lastAppliedAnnotation      = "kubectl.kubernetes.io/last-applied-configuration"
	installedAlongsidePrefix   = "operatorframework.io/installed-alongside-"
	copiedReason               = "Copied"
	disableCopiedCSVsConfigKey = "cluster"
	generatedByAnnotation      = "olm.generated-by"
	installPlanGenerateName    = "install-"
)

// install is one chosen bundle being installed into a namespace.
type install struct {
	sel       *resolver.Selection
	ns        string
	csv       *v1alpha1.ClusterServiceVersion
	manifests *catalog.Manifests
	group     *group
	apis      []schema.GroupVersionKind
	failure   *CSVFailure
}

type renderer struct {
	set      *inputs.Set
	opts     Options
	groups   []*group
	byNS     map[string][]*group
	installs []*install
	failures []CSVFailure
	warnings diag.Problems
	out      collector
}

func newRenderer(set *inputs.Set, opts Options) *renderer {
	r := &renderer{set: set, opts: opts, byNS: map[string][]*group{}}
	ogs := slices.Clone(set.OperatorGroups)
	slices.SortFunc(ogs, func(a, b *inputs.OperatorGroup) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	for _, og := range ogs {
		g := newGroup(og, set.Namespaces)
		r.groups = append(r.groups, g)
		r.byNS[og.Namespace] = append(r.byNS[og.Namespace], g)
	}
	return r
}

// plan prepares every install and decides OLM's membership checks.
func (r *renderer) plan(res *resolver.Result) error {
	var errs []error
	for _, g := range r.groups {
		if g.err != nil {
			errs = append(errs, fmt.Errorf("%s: OperatorGroup %s/%s: %w", g.og.Origin, g.og.Namespace, g.og.Name, g.err))
		}
	}
	for _, nr := range res.Namespaces {
		for _, sel := range nr.Selections {
			in, err := r.prepare(nr.Namespace, sel)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			r.installs = append(r.installs, in)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	slices.SortFunc(r.installs, func(a, b *install) int {
		return cmp.Or(cmp.Compare(a.ns, b.ns), cmp.Compare(a.csv.Name, b.csv.Name))
	})
	for _, in := range r.installs {
		r.membership(in)
	}
	for _, in := range r.installs {
		if in.failure == nil {
			r.reconcileAPIs(in)
		}
		if in.failure == nil {
			r.requirements(in)
		}
		if in.failure != nil {
			r.failures = append(r.failures, *in.failure)
		}
	}
	return nil
}

// prepare decodes the chosen bundle's CSV into the namespace, with what the InstallPlan sets.
func (r *renderer) prepare(ns string, sel *resolver.Selection) (*install, error) {
	m, err := sel.Bundle.Manifests()
	if err != nil {
		src := ""
		if sel.Catalog != nil {
			src = " from catalog " + sel.Catalog.Key()
		}
		if errors.Is(err, catalog.ErrNoManifests) {
			return nil, fmt.Errorf("bundle %s%s (Subscription %s/%s): the catalog carries only its metadata (olm.csv.metadata), not its manifests; bind a catalog that has them: a file-based catalog with olm.bundle.object properties, or the bundle directory (<package>/<version>/manifests and metadata) with --catalog %s=PATH",
				sel.Bundle.Name, src, ns, sel.Subscription.Name, keyOr(sel.Catalog, "NAMESPACE/NAME"))
		}
		return nil, fmt.Errorf("bundle %s%s: %w", sel.Bundle.Name, src, err)
	}
	csv := m.CSV.DeepCopy()
	csv.APIVersion, csv.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.ClusterServiceVersionKind
	csv.Namespace = ns
	csv.ResourceVersion, csv.UID, csv.Generation = "", "", 0
	csv.Spec.Replaces = sel.Replaces
	props, err := json.Marshal(struct {
		Properties []catalog.Property `json:"properties"`
	}{sel.Properties})
	if err != nil {
		return nil, fmt.Errorf("bundle %s: encoding properties: %w", sel.Bundle.Name, err)
	}
	if csv.Annotations == nil {
		csv.Annotations = map[string]string{}
	}
	csv.Annotations[propertiesAnnotation] = string(props)
	if csv.Labels == nil {
		csv.Labels = map[string]string{}
	}
	csv.Labels[managedLabel] = "true"
	csv.Labels[componentLabel(sel.Bundle.Package, ns)] = ""
	csv.Status = v1alpha1.ClusterServiceVersionStatus{}
	// OLM's controllers read the CSV the API server stored, with its CRD's defaults: they are
	// in the Deployments OLM builds and in their spec hash.
	if csv, err = stored.CSV(csv); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", sel.Bundle.Name, err)
	}
	return &install{sel: sel, ns: ns, csv: csv, manifests: m, apis: rbac.ProvidedAPIs(csv)}, nil
}

func keyOr(c *inputs.Catalog, def string) string {
	if c == nil {
		return def
	}
	return c.Key()
}

// componentLabel is the adoption controller's operators.coreos.com/<package>.<namespace> label:
// the name part cut to 63 characters with trailing '.', '-' and '_' trimmed.
func componentLabel(pkg, ns string) string {
	name := pkg + "." + ns
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], ".-_")
	}
	return componentLabelPrefix + name
}

func (r *renderer) fail(in *install, reason, message string) {
	in.failure = &CSVFailure{Namespace: in.ns, CSV: in.csv.Name, Phase: v1alpha1.CSVPhaseFailed, Reason: reason, Message: message}
	if in.group != nil {
		in.failure.OperatorGroup = in.group.og.Name
	}
	if !in.sel.Generated {
		in.failure.Subscription = in.sel.Subscription
	}
}

// membership applies OLM's OperatorGroup and install-mode checks and the CSV annotations.
func (r *renderer) membership(in *install) {
	groups := r.byNS[in.ns]
	switch len(groups) {
	case 0:
		r.fail(in, reasonNoOperatorGroup, messageNoOperatorGroup)
		in.failure.Fix = fmt.Sprintf("declare an OperatorGroup in namespace %s (spec: {} targets all namespaces)", in.ns)
		return
	case 1:
	default:
		r.fail(in, reasonTooManyGroups, messageTooManyGroups)
		in.failure.Fix = "keep one of " + groupList(groups)
		return
	}
	g := groups[0]
	in.group = g
	in.csv.Annotations[operatorsv1.OperatorGroupAnnotationKey] = g.og.Name
	in.csv.Annotations[operatorsv1.OperatorGroupNamespaceAnnotationKey] = g.og.Namespace
	if len(g.targets) > 0 {
		// status.namespaces sorted and joined; "" for a global group.
		in.csv.Annotations[operatorsv1.OperatorGroupTargetsAnnotationKey] = strings.Join(g.targets, ",")
	}
	if len(g.targets) == 0 {
		r.fail(in, reasonNoTargetNamespaces, messageNoTargetNamespaces)
		in.failure.Cause = groupCause(g, "selects no namespace the render knows: OLM fails every CSV of the group (NoTargetNamespaces); declare a Namespace its selector matches, or name the namespaces in spec.targetNamespaces")
		return
	}
	modes, err := v1alpha1.NewInstallModeSet(in.csv.Spec.InstallModes)
	if err != nil {
		r.fail(in, reasonInvalidInstallModes, err.Error())
		return
	}
	if err := modes.Supports(in.ns, g.targets); err != nil {
		r.fail(in, reasonUnsupportedGroup, err.Error())
		in.failure.Fix = fmt.Sprintf("%s supports %s; the OperatorGroup %s asks for %s", in.csv.Name, supportedModes(in.csv), groupList(groups), groupMode(in.ns, g.targets))
		in.failure.Cause = groupCause(g, fmt.Sprintf("asks for %s, an install mode %s does not support (it supports %s): OLM fails the CSV (UnsupportedOperatorGroup); %s",
			groupMode(in.ns, g.targets), in.csv.Name, supportedModes(in.csv), modeFix(in.csv)))
		return
	}
	if err := webhook.Validate(in.csv); err != nil {
		r.fail(in, webhook.Reason, err.Error())
	}
}

// reconcileAPIs is OLM's ReconcileAPIIntersection, taken in (namespace, CSV) order: a CSV whose
// provided APIs another intersecting group already provides conflicts; a static group cannot
// gain APIs.
func (r *renderer) reconcileAPIs(in *install) {
	if len(in.apis) == 0 {
		return
	}
	g := in.group
	for _, other := range r.groups {
		if other == g || !g.intersects(other) {
			continue
		}
		for _, api := range in.apis {
			if other.apis[api] {
				r.fail(in, reasonOwnerConflict, messageOwnerConflict)
				return
			}
		}
	}
	for _, api := range in.apis {
		if !g.apis[api] && g.static {
			r.fail(in, reasonStaticAPIs, messageStaticAPIs)
			return
		}
	}
	for _, api := range in.apis {
		g.apis[api] = true
	}
}

// requirements is the part of OLM's requirement check a render can make: the CSV's
// minKubeVersion against the cluster's version (olm/requirements.go minKubeVersionStatus). An
// unmet requirement leaves the CSV Pending with reason RequirementsNotMet.
func (r *renderer) requirements(in *install) {
	r.nativeAPIs(in)
	server, ok := r.kubeVersion()
	if !ok || in.csv.Spec.MinKubeVersion == "" {
		return
	}
	message := ""
	min, err := semver.Parse(strings.TrimPrefix(in.csv.Spec.MinKubeVersion, "v"))
	switch {
	case err != nil:
		message = "CSV version parsing error"
	case min.Compare(server) > 0:
		message = fmt.Sprintf("CSV version requirement not met: minKubeVersion (%s) > server version (%s)", in.csv.Spec.MinKubeVersion, server)
	default:
		return
	}
	r.fail(in, string(v1alpha1.CSVReasonRequirementsNotMet), message)
	in.failure.Phase = v1alpha1.CSVPhasePending
}

// nativeAPIs warns about the APIs a CSV requires from the cluster (spec.nativeAPIs) that neither
// Kubernetes nor the render provides: OLM checks them against the cluster's discovery
// (olm/requirements.go) and keeps the CSV Pending (RequirementsNotMet, "Native API does not
// exist") where they are missing, which a render cannot know. OpenShift serves route.openshift.io,
// for one; a vanilla cluster does not.
func (r *renderer) nativeAPIs(in *install) {
	for i, api := range in.csv.Spec.NativeAPIs {
		gvk := schema.GroupVersionKind(api)
		if servedWithOLM(gvk) || r.renders(gvk) {
			continue
		}
		r.warnings.Warnf(in.manifests.CSVOrigin, "ClusterServiceVersion/"+in.ns+"/"+in.csv.Name, fmt.Sprintf("spec.nativeAPIs[%d]", i),
			"requires %s %s from the cluster, which Kubernetes does not serve: OLM keeps the CSV Pending (RequirementsNotMet) on a cluster without it",
			gvk.GroupVersion(), gvk.Kind)
	}
}

// servedWithOLM reports whether every cluster a CSV can live on serves an API: Kubernetes'
// own (with the apiextensions and aggregation APIs) and OLM's.
func servedWithOLM(gvk schema.GroupVersionKind) bool {
	switch gvk.Group {
	case "operators.coreos.com", "apiextensions.k8s.io", "apiregistration.k8s.io":
		return true
	}
	return clientscheme.Scheme.Recognizes(gvk)
}

// renders reports whether an API is provided by a CRD the render holds.
func (r *renderer) renders(gvk schema.GroupVersionKind) bool {
	for _, in := range r.installs {
		for _, api := range in.apis {
			if api == gvk {
				return true
			}
		}
	}
	return false
}

// kubeVersion returns the cluster's Kubernetes version, when the options name one.
func (r *renderer) kubeVersion() (semver.Version, bool) {
	if r.opts.KubeVersion == "" {
		return semver.Version{}, false
	}
	v, err := semver.Parse(strings.Split(strings.TrimPrefix(r.opts.KubeVersion, "v"), "-")[0])
	if err != nil {
		return semver.Version{}, false // validated where the option is read
	}
	return v, true
}

// groupCause is a problem of an OperatorGroup, at the field that decides its targets:
// spec.selector when it has one, else spec.targetNamespaces (unset for a global group).
func groupCause(g *group, msg string) *diag.Problem {
	og := g.og
	field := "spec.targetNamespaces"
	if og.Spec.Selector != nil && len(og.Spec.TargetNamespaces) == 0 {
		field = "spec.selector"
	}
	return &diag.Problem{Severity: diag.Error, Origin: og.Origin, Object: "OperatorGroup/" + og.Namespace + "/" + og.Name,
		Field: field, Message: msg}
}

// modeFix says how an OperatorGroup can ask for an install mode a CSV supports.
func modeFix(csv *v1alpha1.ClusterServiceVersion) string {
	var fixes []string
	for _, m := range csv.Spec.InstallModes {
		if !m.Supported {
			continue
		}
		switch m.Type {
		case v1alpha1.InstallModeTypeAllNamespaces:
			fixes = append(fixes, "spec: {} for AllNamespaces")
		case v1alpha1.InstallModeTypeOwnNamespace:
			fixes = append(fixes, "targetNamespaces: [its own namespace] for OwnNamespace")
		case v1alpha1.InstallModeTypeSingleNamespace:
			fixes = append(fixes, "targetNamespaces: [one namespace] for SingleNamespace")
		case v1alpha1.InstallModeTypeMultiNamespace:
			fixes = append(fixes, "targetNamespaces: [several namespaces] for MultiNamespace")
		}
	}
	if len(fixes) == 0 {
		return "the CSV supports no install mode, so no OperatorGroup can install it"
	}
	return "set " + strings.Join(fixes, ", or ")
}

// groupList names OperatorGroups with the files declaring them.
func groupList(groups []*group) string {
	out := make([]string, len(groups))
	for i, g := range groups {
		out[i] = g.og.Namespace + "/" + g.og.Name
		if o := g.og.Origin.String(); o != "" {
			out[i] += " (" + o + ")"
		}
	}
	return strings.Join(out, " and ")
}

// supportedModes lists the install modes a CSV supports.
func supportedModes(csv *v1alpha1.ClusterServiceVersion) string {
	var out []string
	for _, m := range csv.Spec.InstallModes {
		if m.Supported {
			out = append(out, string(m.Type))
		}
	}
	if len(out) == 0 {
		return "no install mode"
	}
	return strings.Join(out, ", ")
}

// groupMode names the install mode an OperatorGroup's targets amount to for a namespace.
func groupMode(ns string, targets []string) string {
	switch {
	case len(targets) == 1 && targets[0] == "":
		return "AllNamespaces (no targetNamespaces or selector)"
	case len(targets) == 1 && targets[0] == ns:
		return "OwnNamespace (targetNamespaces: [" + ns + "])"
	case len(targets) == 1:
		return "SingleNamespace (targetNamespaces: [" + targets[0] + "])"
	}
	return "MultiNamespace (" + strings.Join(targets, ", ") + ")"
}

package importer

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/schemas/diag"
)

// Reason says why an import cannot reproduce an object as the cluster has it.
type Reason string

// The reasons of reports.
const (
	// CSVFailed: an installed CSV is in phase Failed.
	CSVFailed Reason = "CSVFailed"
	// CSVReplacing: an installed CSV is being replaced or deleted (an upgrade is under way).
	CSVReplacing Reason = "CSVReplacing"
	// CSVNotSucceeded: an installed CSV is still being installed (Pending, InstallReady, ...).
	CSVNotSucceeded Reason = "CSVNotSucceeded"
	// CSVMissing: a Subscription's installedCSV does not exist.
	CSVMissing Reason = "CSVMissing"
	// NoSubscription: a CSV was installed without a Subscription.
	NoSubscription Reason = "NoSubscription"
	// PendingApproval: a Subscription's manual InstallPlan waits for approval.
	PendingApproval Reason = "PendingApproval"
	// NotInstalled: a Subscription has no installed CSV.
	NotInstalled Reason = "NotInstalled"
	// NoImage: a CatalogSource has no spec.image (a configMap or address source).
	NoImage Reason = "NoImage"
	// NoCatalogDigest: the cluster does not tell which digest of a CatalogSource's image it runs.
	NoCatalogDigest Reason = "NoCatalogDigest"
	// MissingCatalogSource: a Subscription names a CatalogSource that does not exist.
	MissingCatalogSource Reason = "MissingCatalogSource"
	// ConditionOverrides: an OperatorCondition carries spec.overrides, which a render does not hold.
	ConditionOverrides Reason = "ConditionOverrides"
)

// Report is something an import cannot reproduce, on one object.
type Report struct {
	Reason Reason
	// Kind, Namespace and Name name the object.
	Kind, Namespace, Name string
	// Message says what the cluster holds and what the import does about it, lower-case.
	Message string
}

// Object returns "Kind/namespace/name" (diag's object naming).
func (r Report) Object() string {
	return r.Kind + "/" + qualified(r.Namespace, r.Name)
}

// String returns "Kind namespace/name: message".
func (r Report) String() string {
	return fmt.Sprintf("%s %s: %s", r.Kind, qualified(r.Namespace, r.Name), r.Message)
}

// Problem returns the report as a warning.
func (r Report) Problem() diag.Problem {
	return diag.Problem{Severity: diag.Warning, Object: r.Object(), Message: r.Message}
}

// Problems returns the reports as warnings, sorted.
func Problems(reports []Report) diag.Problems {
	out := make(diag.Problems, 0, len(reports))
	for _, r := range reports {
		out = append(out, r.Problem())
	}
	return out.Sorted()
}

func sortReports(rs []Report) {
	slices.SortFunc(rs, func(a, b Report) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.Message, b.Message))
	})
}

// reports lists what the snapshot holds that an import cannot reproduce, sorted.
func (s *snapshot) reports() []Report {
	var out []Report
	for _, sub := range s.subscriptions {
		out = append(out, s.subscriptionReports(sub)...)
	}
	for _, c := range s.csvs {
		out = append(out, s.csvReports(c)...)
	}
	out = append(out, s.conditionReports()...)
	for _, cs := range s.catalogSources {
		if r := s.catalogReport(cs); r != nil {
			out = append(out, *r)
		}
	}
	sortReports(out)
	return out
}

func subscriptionReport(sub *subscription, reason Reason, format string, args ...any) Report {
	return Report{Reason: reason, Kind: v1alpha1.SubscriptionKind, Namespace: sub.Namespace, Name: sub.Name,
		Message: fmt.Sprintf(format, args...)}
}

func csvReport(c *csvInfo, reason Reason, format string, args ...any) Report {
	return Report{Reason: reason, Kind: v1alpha1.ClusterServiceVersionKind, Namespace: c.Namespace, Name: c.Name,
		Message: fmt.Sprintf(format, args...)}
}

// subscriptionReports reports a Subscription with nothing installed, an installed CSV that is
// gone, an InstallPlan waiting for approval, and a CatalogSource that does not exist.
func (s *snapshot) subscriptionReports(sub *subscription) []Report {
	var out []Report
	installed := sub.Status.InstalledCSV
	switch {
	case installed == "":
		out = append(out, subscriptionReport(sub, NotInstalled,
			"nothing is installed (state %q): it is not locked, and the first render installs what it resolves", sub.Status.State))
	case s.installedCSV(sub.Namespace, installed) == nil:
		out = append(out, subscriptionReport(sub, CSVMissing,
			"status.installedCSV %s does not exist: the lock pins it, as OLM still considers it installed", installed))
	}
	if r := s.pendingApproval(sub); r != nil {
		out = append(out, *r)
	}
	if s.catalogSource(sourceNamespace(sub), sub.Spec.CatalogSource) == nil {
		out = append(out, subscriptionReport(sub, MissingCatalogSource,
			"its CatalogSource %s does not exist: declare it, or bind a catalog snapshot with --catalog %s=PATH",
			qualified(sourceNamespace(sub), sub.Spec.CatalogSource), qualified(sourceNamespace(sub), sub.Spec.CatalogSource)))
	}
	return out
}

// pendingApproval reports a manual InstallPlan of the Subscription that waits for approval.
func (s *snapshot) pendingApproval(sub *subscription) *Report {
	name := installPlanName(sub)
	if name == "" {
		return nil
	}
	ip := s.installPlan(sub.Namespace, name)
	if ip == nil || ip.Approved || ip.Approval != v1alpha1.ApprovalManual ||
		(ip.Phase != v1alpha1.InstallPlanPhaseRequiresApproval && sub.Status.State != v1alpha1.SubscriptionStateUpgradePending) {
		return nil
	}
	pending := slices.DeleteFunc(slices.Clone(ip.CSVNames), func(n string) bool { return n == sub.Status.InstalledCSV })
	keeps := "nothing installed, as in the cluster"
	if sub.Status.InstalledCSV != "" {
		keeps = sub.Status.InstalledCSV
	}
	r := subscriptionReport(sub, PendingApproval,
		"InstallPlan %s/%s waits for approval to install %s: the lock keeps %s; to accept it, run `olm-render upgrade %s/%s` and merge the pull request (it is the approval)",
		ip.Namespace, ip.Name, strings.Join(pending, ", "), keeps, sub.Namespace, sub.Name)
	return &r
}

// csvReports reports a CSV that is not Succeeded, and one no Subscription installed.
func (s *snapshot) csvReports(c *csvInfo) []Report {
	var out []Report
	switch c.Phase {
	case v1alpha1.CSVPhaseSucceeded:
	case v1alpha1.CSVPhaseFailed:
		out = append(out, csvReport(c, CSVFailed,
			"phase Failed (%s: %s): the lock pins it as installed, but a render holds no failure; fix the install, or move to another version, before GitOps takes over",
			c.Reason, c.Message))
	case v1alpha1.CSVPhaseReplacing, v1alpha1.CSVPhaseDeleting:
		out = append(out, csvReport(c, CSVReplacing,
			"phase %s: an upgrade%s is under way; import again when it has finished", c.Phase, s.replacedBy(c)))
		return out
	default:
		out = append(out, csvReport(c, CSVNotSucceeded,
			"phase %q (%s): it is still being installed; import again when it has succeeded", c.Phase, c.Reason))
	}
	if !s.subscribed(c) {
		out = append(out, csvReport(c, NoSubscription,
			"installed without a Subscription: olm-render renders only what Subscriptions install, so nothing will manage it; declare a Subscription with startingCSV %s, or remove it", c.Name))
	}
	return out
}

// replacedBy returns " to NAME" for the CSV of the same namespace that replaces c, if any.
func (s *snapshot) replacedBy(c *csvInfo) string {
	for _, o := range s.csvs {
		if o.Namespace == c.Namespace && o.Replaces == c.Name {
			return " to " + o.Name
		}
	}
	return ""
}

// subscribed reports whether a Subscription of the CSV's namespace installs it.
func (s *snapshot) subscribed(c *csvInfo) bool {
	return slices.ContainsFunc(s.subscriptions, func(sub *subscription) bool {
		return sub.Namespace == c.Namespace && (sub.Status.InstalledCSV == c.Name || sub.Status.CurrentCSV == c.Name)
	})
}

// catalogReport reports a CatalogSource olm-render cannot read (no image and no snapshot bound
// by annotation) and one whose image digest the cluster does not tell.
func (s *snapshot) catalogReport(cs *catalogSource) *Report {
	r := Report{Kind: v1alpha1.CatalogSourceKind, Namespace: cs.Namespace, Name: cs.Name}
	switch {
	case cs.Spec.Image == "" && cs.Annotations[catalogAnnotation] != "":
		return nil
	case cs.Spec.Image == "":
		r.Reason = NoImage
		r.Message = fmt.Sprintf("has no spec.image (%s): olm-render cannot read it; bind a catalog snapshot with --catalog %s=PATH or the %s annotation",
			describeSource(cs), qualified(cs.Namespace, cs.Name), catalogAnnotation)
		return &r
	}
	_, problem := s.catalogPin(cs)
	if problem == "" {
		return nil
	}
	r.Reason, r.Message = NoCatalogDigest, problem
	return &r
}

// describeSource says where a CatalogSource without image serves from.
func describeSource(cs *catalogSource) string {
	switch {
	case cs.Spec.ConfigMap != "":
		return fmt.Sprintf("sourceType %s, configMap %s", cs.Spec.SourceType, cs.Spec.ConfigMap)
	case cs.Spec.Address != "":
		return fmt.Sprintf("sourceType %s, address %s", cs.Spec.SourceType, cs.Spec.Address)
	}
	return fmt.Sprintf("sourceType %s", cs.Spec.SourceType)
}

// conditionReports reports the OperatorConditions whose spec.overrides someone set (an
// Upgradeable override, say): the render writes OperatorConditions without overrides, so they
// are not carried into Git; a server-side apply leaves them to their field manager.
func (s *snapshot) conditionReports() []Report {
	var out []Report
	for _, c := range s.conditions {
		overrides, _, _ := unstructured.NestedSlice(c.Object, "spec", "overrides")
		if len(overrides) == 0 {
			continue
		}
		var types []string
		for _, o := range overrides {
			if m, ok := o.(map[string]any); ok {
				if t, ok := m["type"].(string); ok {
					types = append(types, t)
				}
			}
		}
		out = append(out, Report{Reason: ConditionOverrides, Kind: "OperatorCondition", Namespace: c.GetNamespace(), Name: c.GetName(),
			Message: fmt.Sprintf("spec.overrides (%s) are not imported: the render writes the OperatorCondition without them; a server-side apply keeps them as another manager's, a client-side or replacing apply removes them", strings.Join(types, ", "))})
	}
	return out
}

package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Gate names a kind of change a pipeline may refuse (olm-render diff --fail-on).
type Gate string

// Gates.
const (
	// GatePermissionGrowth fires when a subject gains or widens a permission (permissions.Grew), or
	// when the permissions could not be compared.
	GatePermissionGrowth Gate = "permission-growth"
	// GateCRDBreaking fires when a CRD change can break stored objects (crdcompat), or a CRD is
	// removed.
	GateCRDBreaking Gate = "crd-breaking"
	// GateWebhookChange fires when a webhook configuration is added, removed or changes its
	// webhooks, or a CSV's webhook definitions change.
	GateWebhookChange Gate = "webhook-change"
	// GateDependencyChange fires when a CSV requires or stops requiring something, or an operator
	// CSV appears or disappears without an upgrade.
	GateDependencyChange Gate = "dependency-change"
	// GateInstallModeChange fires when a CSV's support of an install mode changes.
	GateInstallModeChange Gate = "install-mode-change"
	// GateDowngrade fires when an operator's CSV moves to an older version: a CSV upgrade whose
	// spec.version decreases, or, where OLM runs (--olm=running), a Subscription whose lock
	// (spec.startingCSV) moves to an older CSV of its package, which OLM never installs.
	GateDowngrade Gate = "downgrade"
	// GateAnyChange fires when anything differs.
	GateAnyChange Gate = "any-change"
)

// AllGates lists every gate, sorted by name.
func AllGates() []Gate {
	return []Gate{GateAnyChange, GateCRDBreaking, GateDependencyChange, GateDowngrade, GateInstallModeChange, GatePermissionGrowth, GateWebhookChange}
}

// ParseGates parses gate names; each value may hold several, separated by commas. Repeated names
// count once; the result is sorted. An unknown name is an error listing the valid ones.
func ParseGates(values []string) ([]Gate, error) {
	var out []Gate
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			g := Gate(strings.TrimSpace(name))
			if g == "" {
				continue
			}
			if !slices.Contains(AllGates(), g) {
				return nil, fmt.Errorf("unknown gate %q: valid gates are %s", g, gateList())
			}
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// gateList returns the gate names joined by ", ".
func gateList() string {
	names := make([]string, 0, len(AllGates()))
	for _, g := range AllGates() {
		names = append(names, string(g))
	}
	return strings.Join(names, ", ")
}

// Finding is one reason a gate fires.
type Finding struct {
	Gate Gate `json:"gate"`
	// Operator is "namespace/package" of the upgrade concerned; empty when no upgrade is.
	Operator string `json:"operator,omitempty"`
	// Object is the object concerned, such as "CustomResourceDefinition/hawtios.hawt.io" or
	// "ServiceAccount/ops/etcd-operator".
	Object  string `json:"object"`
	Message string `json:"message"`
}

// String reads "gate: operator ns/pkg: object: message" ("gate: object: message" without an
// operator).
func (f Finding) String() string {
	op := ""
	if f.Operator != "" {
		op = "operator " + f.Operator + ": "
	}
	return fmt.Sprintf("%s: %s%s: %s", f.Gate, op, f.Object, f.Message)
}

// compareFindings orders findings by gate, operator, object, then message.
func compareFindings(a, b Finding) int {
	return cmp.Or(cmp.Compare(a.Gate, b.Gate), cmp.Compare(a.Operator, b.Operator),
		cmp.Compare(a.Object, b.Object), cmp.Compare(a.Message, b.Message))
}

// Check returns the reasons the given gates fire, sorted; none when they all pass. any-change
// yields one reason per changed object.
func (r *Report) Check(gates []Gate) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if slices.Contains(gates, f.Gate) {
			out = append(out, f)
		}
	}
	if slices.Contains(gates, GateAnyChange) {
		out = append(out, r.anyChange()...)
	}
	slices.SortFunc(out, compareFindings)
	return out
}

// anyChange returns one any-change finding per change.
func (r *Report) anyChange() []Finding {
	out := make([]Finding, 0, len(r.Changes))
	for _, c := range r.Changes {
		out = append(out, Finding{Gate: GateAnyChange, Operator: r.operatorOf(c), Object: c.label(), Message: string(c.Action)})
	}
	return out
}

// operatorOf names the first upgrade a change belongs to; "" when none.
func (r *Report) operatorOf(c *Change) string {
	for _, u := range r.Upgrades {
		if belongs(c, u.pair, ownedPackageLabels(u.pair)) {
			return u.Operator()
		}
	}
	return ""
}

// Gates returns the gates other than any-change that fire, sorted.
func (r *Report) Gates() []Gate {
	var out []Gate
	for _, f := range r.Findings {
		out = append(out, f.Gate)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// findings collects the reasons every gate but any-change fires.
func findings(r *Report) []Finding {
	var out []Finding
	for _, u := range r.Upgrades {
		out = append(out, detailFindings(u.Operator(), u.csvObject(), &u.Details)...)
		out = append(out, installModeFindings(u)...)
		out = append(out, downgradeFindings(u)...)
	}
	if r.Other != nil {
		out = append(out, detailFindings("", "", r.Other)...)
	}
	slices.SortFunc(out, compareFindings)
	return out
}

// detailFindings returns the permission, CRD, webhook and dependency findings of details.
func detailFindings(operator, csv string, d *Details) []Finding {
	var out []Finding
	for _, c := range d.Permissions.Changes {
		if c.grows() {
			out = append(out, Finding{Gate: GatePermissionGrowth, Operator: operator, Object: subjectObject(c.Subject), Message: c.Summary})
		}
	}
	for _, c := range d.CRDs {
		for _, b := range c.Breaking {
			out = append(out, Finding{Gate: GateCRDBreaking, Operator: operator, Object: crdKind + "/" + c.Name, Message: b})
		}
	}
	for _, c := range d.Webhooks {
		out = append(out, Finding{Gate: GateWebhookChange, Operator: operator, Object: c.Object, Message: webhookMessage(c)})
	}
	for _, c := range d.Dependencies {
		out = append(out, Finding{Gate: GateDependencyChange, Operator: operator, Object: dependencyObject(c, csv), Message: c.String()})
	}
	return out
}

// webhookMessage reads "added", or "modified webhook definition x (type)".
func webhookMessage(c WebhookChange) string {
	if c.Definition == "" {
		return string(c.Action)
	}
	return string(c.Action) + " webhook definition " + c.Definition
}

// dependencyObject names the object of a dependency finding: the CSV installed or removed, or
// the CSV whose requirements changed.
func dependencyObject(c DependencyChange, csv string) string {
	if c.Type == operatorDependency {
		object, _, _ := strings.Cut(c.Value, " (")
		return object
	}
	return csv
}

// installModeFindings returns one finding per install mode change of an upgrade.
func installModeFindings(u Upgrade) []Finding {
	object := u.csvObject()
	out := make([]Finding, 0, len(u.InstallModes))
	for _, c := range u.InstallModes {
		out = append(out, Finding{Gate: GateInstallModeChange, Operator: u.Operator(), Object: object, Message: c.String()})
	}
	return out
}

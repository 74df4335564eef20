package diff

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Details is what an upgrade changes, or what the rest of a diff changes, for review.
type Details struct {
	// Images are the container and init container images of the operator's Deployments that
	// changed, were added or were removed.
	Images []ImageChange `json:"images,omitempty"`
	// RelatedImages are the changes to the CSV's spec.relatedImages.
	RelatedImages []ImageChange `json:"relatedImages,omitempty"`
	// Permissions are the changes to what the operator's ServiceAccounts may do.
	Permissions PermissionChanges `json:"permissions"`
	// CRDs are the CustomResourceDefinitions added, removed or changed in their schema.
	CRDs []CRDChange `json:"crds,omitempty"`
	// Webhooks are the webhook configurations and CSV webhook definitions that changed.
	Webhooks []WebhookChange `json:"webhooks,omitempty"`
	// Dependencies are the requirements added or removed, and the operators installed or
	// removed.
	Dependencies []DependencyChange `json:"dependencies,omitempty"`
	// InstallModes are the install modes whose support changed.
	InstallModes []InstallModeChange `json:"installModes,omitempty"`
}

// empty reports whether nothing is recorded.
func (d *Details) empty() bool {
	return len(d.Images)+len(d.RelatedImages)+len(d.Permissions.Changes)+len(d.CRDs)+
		len(d.Webhooks)+len(d.Dependencies)+len(d.InstallModes) == 0
}

// analyze fills in what each upgrade changes, what no upgrade accounts for, and the findings.
func analyze(r *Report, before, after map[Key]*unstructured.Unstructured) {
	for i := range r.Upgrades {
		u := &r.Upgrades[i]
		u.Images = imageChanges(u.pair, before, after)
		u.RelatedImages = relatedImageChanges(u.pair)
		u.Webhooks = webhookDefinitionChanges(u.pair)
		u.Dependencies = dependencyChanges(u.pair)
		u.InstallModes = installModeChanges(u.pair)
	}
	a := &attribution{upgrades: r.Upgrades, other: &Details{}}
	addPermissions(a, before, after)
	addCRDs(a, r.Changes)
	addWebhookObjects(a, r.Changes)
	a.other.Dependencies = append(a.other.Dependencies, operatorsAddedOrRemoved(r.Changes, r.Upgrades)...)
	for i := range r.Upgrades {
		r.Upgrades[i].Webhooks = sortWebhooks(r.Upgrades[i].Webhooks)
	}
	a.other.Webhooks = sortWebhooks(a.other.Webhooks)
	if !a.other.empty() {
		r.Other = a.other
	}
	r.Findings = findings(r)
}

// attribution hands each finding to the upgrades it concerns, or to the rest.
type attribution struct {
	upgrades []Upgrade
	other    *Details
}

// targets returns the details of every upgrade whose pair matches, or the rest's details when
// none does.
func (a *attribution) targets(match func(csvPair) bool) []*Details {
	var out []*Details
	for i := range a.upgrades {
		if match(a.upgrades[i].pair) {
			out = append(out, &a.upgrades[i].Details)
		}
	}
	if len(out) == 0 {
		out = append(out, a.other)
	}
	return out
}

// csvs returns the pair's CSVs that exist (both, or one for an in-place change).
func (p csvPair) csvs() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, u := range []*unstructured.Unstructured{p.before, p.after} {
		if u != nil {
			out = append(out, u)
		}
	}
	return out
}

// distinctSorted sorts s and drops repeated values.
func distinctSorted(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

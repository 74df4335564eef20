package diff

import "github.com/olm-render/olm-render/olmv1"

// extensionGroup gathers the deleted and added objects of one ClusterExtension that may pair:
// same owner, group, kind and namespace.
type extensionGroup struct {
	owner, group, kind, namespace string
}

// pairExtensionRenamed replaces each deleted object of a ClusterExtension and the added object
// of the same ClusterExtension that is its renamed successor by one modification whose From is
// the old key, and returns the changes sorted again. operator-controller names the RBAC it
// creates after the bundle (<bundle>-<service account>-<hash of the rules>), so every upgrade
// renames it; objects pair as pairRenamed pairs them within a CSV upgrade: same ServiceAccount
// subjects, then the most similar contents.
func (c *comparer) pairExtensionRenamed(changes []*Change) ([]*Change, error) {
	groups := map[extensionGroup]*candidates{}
	var order []extensionGroup
	for _, ch := range changes {
		if ch.Action == Modified {
			continue
		}
		labels := ch.object().GetLabels()
		if labels[olmv1.OwnerKindLabel] != "ClusterExtension" || labels[olmv1.OwnerNameLabel] == "" {
			continue
		}
		gk := extensionGroup{owner: labels[olmv1.OwnerNameLabel], group: ch.Key.Group, kind: ch.Key.Kind, namespace: ch.Key.Namespace}
		if groups[gk] == nil {
			groups[gk] = &candidates{}
			order = append(order, gk)
		}
		if ch.Action == Deleted {
			groups[gk].old = append(groups[gk].old, ch)
		} else {
			groups[gk].new = append(groups[gk].new, ch)
		}
	}
	if len(order) == 0 {
		return changes, nil
	}
	subj := newSubjectIndex(c.before, c.after)
	var matches []match
	for _, gk := range order {
		matches = append(matches, matchGroup(groups[gk], csvPair{}, subj)...)
	}
	return c.applyMatches(changes, matches)
}

package diff

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// WebhookChange is a webhook configuration, or a webhook definition of a CSV, that was added,
// removed or changed.
type WebhookChange struct {
	Action Action `json:"action"`
	// Object is the webhook configuration ("ValidatingWebhookConfiguration/name", "old → new"
	// when renamed) or the CSV ("ClusterServiceVersion/namespace/name") holding the definition.
	Object string `json:"object"`
	// Definition is the CSV webhook definition's generateName and type, such as
	// "vsleepinfo.kb.io (ValidatingAdmissionWebhook)"; empty for a configuration.
	Definition string `json:"definition,omitempty"`
}

// String reads "modified ValidatingWebhookConfiguration/x" or "added webhook definition
// vsleepinfo.kb.io (ValidatingAdmissionWebhook) of ClusterServiceVersion/ops/x".
func (c WebhookChange) String() string {
	if c.Definition == "" {
		return string(c.Action) + " " + c.Object
	}
	return string(c.Action) + " webhook definition " + c.Definition + " of " + c.Object
}

const webhookGroup = "admissionregistration.k8s.io"

// isWebhookConfiguration reports whether a key names a Validating or Mutating webhook
// configuration.
func isWebhookConfiguration(k Key) bool {
	return k.Group == webhookGroup && (k.Kind == "ValidatingWebhookConfiguration" || k.Kind == "MutatingWebhookConfiguration")
}

// addWebhookObjects hands every webhook configuration added, removed, or changed in its
// webhooks (not only in its metadata) to the upgrades whose CSVs own it.
func addWebhookObjects(a *attribution, changes []*Change) {
	for _, ch := range changes {
		if !isWebhookConfiguration(ch.Key) || !webhooksChanged(ch) {
			continue
		}
		wc := WebhookChange{Action: ch.Action, Object: ch.label()}
		for _, d := range a.targets(func(p csvPair) bool { return ownedByPair(ch, p) }) {
			d.Webhooks = append(d.Webhooks, wc)
		}
	}
}

// webhooksChanged reports whether a change adds or removes a configuration, or changes its
// webhooks list.
func webhooksChanged(ch *Change) bool {
	if ch.Action != Modified {
		return true
	}
	return !reflect.DeepEqual(ch.before.Object["webhooks"], ch.after.Object["webhooks"])
}

// ownedByPair reports whether the olm.owner labels of either side of a change name a CSV of
// the pair in its namespace.
func ownedByPair(ch *Change, p csvPair) bool {
	for _, u := range []*unstructured.Unstructured{ch.before, ch.after} {
		if u == nil {
			continue
		}
		if ref := ownerOf(u); ref.Namespace == p.Namespace && (ref.Name == p.From || ref.Name == p.To) {
			return true
		}
	}
	return false
}

// webhookDefinitionChanges compares spec.webhookdefinitions of the pair's CSVs, matched by
// generateName and type.
func webhookDefinitionChanges(p csvPair) []WebhookChange {
	old, cur := webhookDefinitions(p.before), webhookDefinitions(p.after)
	object := Key{Group: csvGroup, Kind: csvKind, Namespace: p.Namespace, Name: p.To}.String()
	var out []WebhookChange
	for _, name := range unionSorted(sortedKeys(old), sortedKeys(cur)) {
		o, inOld := old[name]
		c, inCur := cur[name]
		action := Modified
		switch {
		case !inOld:
			action = Added
		case !inCur:
			action = Deleted
		case reflect.DeepEqual(o, c):
			continue
		}
		out = append(out, WebhookChange{Action: action, Object: object, Definition: name})
	}
	return out
}

// webhookDefinitions returns a CSV's webhook definitions by "generateName (type)".
func webhookDefinitions(csv *unstructured.Unstructured) map[string]any {
	out := map[string]any{}
	list, _, _ := unstructured.NestedSlice(csv.Object, "spec", "webhookdefinitions")
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		name, _ := m["generateName"].(string)
		typ, _ := m["type"].(string)
		out[fmt.Sprintf("%s (%s)", cmp.Or(name, fmt.Sprintf("#%d", i)), typ)] = m
	}
	return out
}

// sortWebhooks orders webhook changes by object, definition and action.
func sortWebhooks(list []WebhookChange) []WebhookChange {
	slices.SortFunc(list, func(a, b WebhookChange) int {
		return cmp.Or(cmp.Compare(a.Object, b.Object), cmp.Compare(a.Definition, b.Definition), cmp.Compare(a.Action, b.Action))
	})
	return list
}

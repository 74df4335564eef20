package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The approval contract's ConfigMap: one per namespace with Subscriptions, applied with the
// rest of the output where OLM runs, read by the approver (olm-render approve).
const (
	// ConfigMapName is the name of a namespace's contract ConfigMap.
	ConfigMapName = "olm-render-approval"
	// Label marks a contract ConfigMap ("true"), so that an approver can watch them all.
	Label = "olm-render.dev/approval-contract"
	// Key is the data key holding the contract (Namespace, as YAML).
	Key = "contract.yaml"
	// HealthAnnotation and HealthMessageAnnotation are where the approver writes the
	// namespace's health (Healthy, Progressing or Degraded, and why), which the Argo CD and
	// Flux health checks of the ConfigMap read.
	HealthAnnotation        = "olm-render.dev/health"
	HealthMessageAnnotation = "olm-render.dev/health-message"
	// HeldAnnotation lists, as a JSON object from Subscription name to CSV, the upgrade step
	// past each locked CSV that OLM will propose and the approver will hold (Subscription.Held),
	// for Subscriptions whose channel offers one; absent when none does. Informational: the
	// approver never reads it.
	HeldAnnotation = "olm-render.dev/held"
	// description is the ConfigMap's annotation saying what it is.
	descriptionAnnotation = "olm-render.dev/description"
	description           = "The CSVs OLM may install in this namespace: each Subscription's locked CSV and the CSVs below it that lead up to it. olm-render approve approves an InstallPlan only when every CSV it installs is listed here."
)

// ConfigMap returns the contract ConfigMap of a namespace.
func ConfigMap(n Namespace) (*corev1.ConfigMap, error) {
	data, err := yaml.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("encoding the approval contract of %s: %w", n.Namespace, err)
	}
	annotations := map[string]string{descriptionAnnotation: description}
	if held := n.held(); len(held) > 0 {
		js, err := json.Marshal(held)
		if err != nil {
			return nil, fmt.Errorf("encoding the held steps of %s: %w", n.Namespace, err)
		}
		annotations[HeldAnnotation] = string(js)
	}
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: n.Namespace,
			Labels:      map[string]string{Label: "true"},
			Annotations: annotations},
		Data: map[string]string{Key: string(data)},
	}, nil
}

// held maps each Subscription with a held step to it.
func (n Namespace) held() map[string]string {
	out := map[string]string{}
	for _, s := range n.Subscriptions {
		if s.Held != "" {
			out[s.Name] = s.Held
		}
	}
	return out
}

// HeldOf reads the held steps a contract ConfigMap records (HeldAnnotation), by Subscription
// name; empty when it records none. The approver never calls it: what it holds follows from the
// contract alone.
func HeldOf(cm *corev1.ConfigMap) (map[string]string, error) {
	out := map[string]string{}
	raw, ok := cm.Annotations[HeldAnnotation]
	if !ok {
		return out, nil
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: annotation %s: %w", cm.Namespace, cm.Name, HeldAnnotation, err)
	}
	return out, nil
}

// FromConfigMap reads the contract of a contract ConfigMap. A contract that names another
// namespace than its ConfigMap's is refused: an approver must never widen one namespace's
// contract with another's.
func FromConfigMap(cm *corev1.ConfigMap) (*Namespace, error) {
	raw, ok := cm.Data[Key]
	if !ok {
		return nil, fmt.Errorf("ConfigMap %s/%s: no %s key", cm.Namespace, cm.Name, Key)
	}
	n := &Namespace{}
	if err := yaml.UnmarshalStrict([]byte(raw), n); err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: %s: %w", cm.Namespace, cm.Name, Key, err)
	}
	switch {
	case n.Namespace != cm.Namespace:
		return nil, fmt.Errorf("ConfigMap %s/%s: %s is the contract of namespace %q", cm.Namespace, cm.Name, Key, n.Namespace)
	case len(n.Subscriptions) == 0:
		return nil, errors.New("ConfigMap " + cm.Namespace + "/" + cm.Name + ": the contract lists no Subscription")
	}
	for i, s := range n.Subscriptions {
		if s.Locked == "" {
			return nil, fmt.Errorf("ConfigMap %s/%s: %s: subscriptions[%d].locked is empty", cm.Namespace, cm.Name, Key, i)
		}
	}
	return n, nil
}

// Admits reports whether a namespace's contract allows every CSV of an InstallPlan, and the
// CSVs it does not allow, sorted. A plan that names no CSV is not admitted.
func (n Namespace) Admits(csvs []string) (bool, []string) {
	allowed := map[string]bool{}
	for _, c := range n.Allowed() {
		allowed[c] = true
	}
	var outside []string
	for _, c := range csvs {
		if !allowed[c] {
			outside = append(outside, c)
		}
	}
	slices.Sort(outside)
	return len(csvs) > 0 && len(outside) == 0, slices.Compact(outside)
}

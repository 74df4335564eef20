package olmv1

import (
	"reflect"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// applyConfig applies a deploymentConfig to a Deployment as operator-controller's renderer does
// (generators.applyCustomConfigToDeployment, after OLM v0's overrides/inject): env and
// volumes override by name, envFrom and tolerations are added once, resources and the node
// selector replace, affinity merges by kind ({} erases), annotations never override.
func applyConfig(dep *appsv1.Deployment, c *v1alpha1.SubscriptionConfig) {
	if c == nil {
		return
	}
	pod := &dep.Spec.Template.Spec
	for i := range pod.Containers {
		ctr := &pod.Containers[i]
		ctr.Env = overrideByName(ctr.Env, c.Env, func(e corev1.EnvVar) string { return e.Name })
		ctr.EnvFrom = addOnce(ctr.EnvFrom, c.EnvFrom)
		ctr.VolumeMounts = overrideByName(ctr.VolumeMounts, c.VolumeMounts, func(m corev1.VolumeMount) string { return m.Name })
		if c.Resources != nil {
			ctr.Resources = *c.Resources.DeepCopy()
		}
	}
	pod.Volumes = overrideByName(pod.Volumes, c.Volumes, func(v corev1.Volume) string { return v.Name })
	pod.Tolerations = addOnce(pod.Tolerations, c.Tolerations)
	if c.NodeSelector != nil {
		pod.NodeSelector = c.NodeSelector
	}
	applyAffinity(pod, c.Affinity)
	applyAnnotations(dep, c.Annotations)
}

// overrideByName replaces the items of have named as one of add, and appends the others (an
// item of add overrides only what have held before).
func overrideByName[T any](have, add []T, name func(T) string) []T {
	index := map[string]int{}
	for i, h := range have {
		index[name(h)] = i
	}
	for _, a := range add {
		if i, ok := index[name(a)]; ok {
			have[i] = a
		} else {
			have = append(have, a)
		}
	}
	return have
}

// addOnce appends the items of add that have does not hold yet.
func addOnce[T any](have, add []T) []T {
	for _, a := range add {
		if !slices.ContainsFunc(have, func(h T) bool { return reflect.DeepEqual(h, a) }) {
			have = append(have, a)
		}
	}
	return have
}

// applyAffinity applies a configured affinity: nil leaves the pod's alone, {} erases it, and
// each kind set replaces the pod's (erasing it when empty).
func applyAffinity(pod *corev1.PodSpec, a *corev1.Affinity) {
	if a == nil {
		return
	}
	if a.NodeAffinity == nil && a.PodAffinity == nil && a.PodAntiAffinity == nil {
		pod.Affinity = nil
		return
	}
	if pod.Affinity == nil {
		pod.Affinity = &corev1.Affinity{}
	}
	if a.NodeAffinity != nil {
		pod.Affinity.NodeAffinity = orNil(a.NodeAffinity, emptyNodeAffinity(a.NodeAffinity))
	}
	if a.PodAffinity != nil {
		pod.Affinity.PodAffinity = orNil(a.PodAffinity, emptyPodAffinity(a.PodAffinity))
	}
	if a.PodAntiAffinity != nil {
		pod.Affinity.PodAntiAffinity = orNil(a.PodAntiAffinity, emptyPodAntiAffinity(a.PodAntiAffinity))
	}
	if emptyNodeAffinity(pod.Affinity.NodeAffinity) && emptyPodAffinity(pod.Affinity.PodAffinity) && emptyPodAntiAffinity(pod.Affinity.PodAntiAffinity) {
		pod.Affinity = nil
	}
}

// orNil returns nil when empty, else p.
func orNil[T any](p *T, empty bool) *T {
	if empty {
		return nil
	}
	return p
}

// emptyNodeAffinity reports whether a node affinity has no term.
func emptyNodeAffinity(a *corev1.NodeAffinity) bool {
	return a == nil || ((a.RequiredDuringSchedulingIgnoredDuringExecution == nil ||
		len(a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0) &&
		len(a.PreferredDuringSchedulingIgnoredDuringExecution) == 0)
}

// emptyPodAffinity reports whether a pod affinity has no term.
func emptyPodAffinity(a *corev1.PodAffinity) bool {
	return a == nil || (len(a.RequiredDuringSchedulingIgnoredDuringExecution) == 0 && len(a.PreferredDuringSchedulingIgnoredDuringExecution) == 0)
}

// emptyPodAntiAffinity reports whether a pod anti-affinity has no term.
func emptyPodAntiAffinity(a *corev1.PodAntiAffinity) bool {
	return a == nil || (len(a.RequiredDuringSchedulingIgnoredDuringExecution) == 0 && len(a.PreferredDuringSchedulingIgnoredDuringExecution) == 0)
}

// applyAnnotations adds configured annotations to the Deployment and its pod template where
// they do not have them already.
func applyAnnotations(dep *appsv1.Deployment, annotations map[string]string) {
	if len(annotations) == 0 {
		return
	}
	for _, m := range []*map[string]string{&dep.Annotations, &dep.Spec.Template.Annotations} {
		if *m == nil {
			*m = map[string]string{}
		}
		for k, v := range annotations {
			if _, ok := (*m)[k]; !ok {
				(*m)[k] = v
			}
		}
	}
}

package deployment

import (
	"fmt"
	"maps"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/render/hash"
)

// Labels and values OLM sets.
const (
	ManagedLabel        = "olm.managed"
	OwnerLabel          = "olm.owner"
	OwnerNamespaceLabel = "olm.owner.namespace"
	OwnerKindLabel      = "olm.owner.kind"
	SpecHashLabel       = "olm.deployment-spec-hash"
	// OperatorConditionEnv names the CSV's OperatorCondition in every container.
	OperatorConditionEnv = "OPERATOR_CONDITION_NAME"
)

// Input is what a CSV's Deployments are rendered from.
type Input struct {
	// CSV is the CSV as OLM annotates it (namespace set, olm.operatorGroup,
	// olm.operatorNamespace, olm.targetNamespaces, operatorframework.io/properties...).
	CSV *v1alpha1.ClusterServiceVersion
	// Config is the Subscription's spec.config, or nil.
	Config *v1alpha1.SubscriptionConfig
	// Mutate, when set, is applied to each Deployment's spec after OLM's certificate
	// requirements would be (webhook and APIService volumes) and before the CSV annotations:
	// render/webhook uses it.
	Mutate func(name string, spec *appsv1.DeploymentSpec) error
}

// ForCSV returns the Deployments of the CSV's install strategy, in strategy order.
func ForCSV(in Input) ([]*appsv1.Deployment, error) {
	csv := in.CSV
	if csv.Spec.InstallStrategy.StrategyName != v1alpha1.InstallStrategyNameDeployment {
		return nil, fmt.Errorf("csv %s: unsupported install strategy %q", csv.Name, csv.Spec.InstallStrategy.StrategyName)
	}
	var out []*appsv1.Deployment
	for i, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		if d.Name == "" {
			return nil, fmt.Errorf("csv %s: spec.install.spec.deployments[%d].name: required", csv.Name, i)
		}
		dep, err := forSpec(in, d)
		if err != nil {
			return nil, fmt.Errorf("csv %s: deployment %s: %w", csv.Name, d.Name, err)
		}
		out = append(out, dep)
	}
	return out, nil
}

func forSpec(in Input, d v1alpha1.StrategyDeploymentSpec) (*appsv1.Deployment, error) {
	csv := in.CSV
	dep := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: csv.Namespace},
		Spec:       *d.Spec.DeepCopy(),
	}
	if in.Mutate != nil {
		if err := in.Mutate(d.Name, &dep.Spec); err != nil {
			return nil, err
		}
	}
	// Pod template annotations overlaid by every CSV annotation (the CSV wins).
	annotations := maps.Clone(dep.Spec.Template.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	maps.Copy(annotations, csv.Annotations)
	if len(annotations) > 0 {
		dep.Spec.Template.Annotations = annotations
	}
	labels := maps.Clone(d.Label)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[ManagedLabel] = "true"
	labels[OwnerLabel] = csv.Name
	labels[OwnerNamespaceLabel] = csv.Namespace
	labels[OwnerKindLabel] = v1alpha1.ClusterServiceVersionKind
	dep.Labels = labels
	if in.Config != nil {
		applyConfig(dep, in.Config)
	}
	setEnv(&dep.Spec.Template.Spec, []corev1.EnvVar{{Name: OperatorConditionEnv, Value: csv.Name}})
	limit := int32(1)
	dep.Spec.RevisionHistoryLimit = &limit
	dep.Labels[SpecHashLabel] = hash.DeepHashObject(&dep.Spec)
	return dep, nil
}

// applyConfig applies a Subscription's spec.config as OLM's overrides initializer does.
func applyConfig(dep *appsv1.Deployment, c *v1alpha1.SubscriptionConfig) {
	pod := &dep.Spec.Template.Spec
	if len(c.Env) > 0 {
		setEnv(pod, c.Env)
	}
	for _, from := range c.EnvFrom {
		for i := range pod.Containers {
			ctr := &pod.Containers[i]
			if !slices.ContainsFunc(ctr.EnvFrom, func(e corev1.EnvFromSource) bool { return equality.Semantic.DeepEqual(e, from) }) {
				ctr.EnvFrom = append(ctr.EnvFrom, *from.DeepCopy())
			}
		}
	}
	for _, v := range c.Volumes {
		if i := slices.IndexFunc(pod.Volumes, func(x corev1.Volume) bool { return x.Name == v.Name }); i >= 0 {
			pod.Volumes[i] = *v.DeepCopy()
		} else {
			pod.Volumes = append(pod.Volumes, *v.DeepCopy())
		}
	}
	for i := range pod.Containers {
		ctr := &pod.Containers[i]
		for _, m := range c.VolumeMounts {
			if j := slices.IndexFunc(ctr.VolumeMounts, func(x corev1.VolumeMount) bool { return x.Name == m.Name }); j >= 0 {
				ctr.VolumeMounts[j] = m
			} else {
				ctr.VolumeMounts = append(ctr.VolumeMounts, m)
			}
		}
	}
	for _, tol := range c.Tolerations {
		if !slices.ContainsFunc(pod.Tolerations, func(x corev1.Toleration) bool { return equality.Semantic.DeepEqual(x, tol) }) {
			pod.Tolerations = append(pod.Tolerations, tol)
		}
	}
	if c.Resources != nil {
		for i := range pod.Containers {
			pod.Containers[i].Resources = *c.Resources.DeepCopy()
		}
	}
	if c.NodeSelector != nil {
		pod.NodeSelector = maps.Clone(c.NodeSelector)
	}
	if c.Affinity != nil {
		pod.Affinity = overrideAffinity(pod.Affinity, c.Affinity)
	}
	if c.Annotations != nil {
		if dep.Annotations == nil {
			dep.Annotations = map[string]string{}
		}
		if dep.Spec.Template.Annotations == nil {
			dep.Spec.Template.Annotations = map[string]string{}
		}
		for k, v := range c.Annotations {
			if _, ok := dep.Annotations[k]; !ok {
				dep.Annotations[k] = v
			}
			if _, ok := dep.Spec.Template.Annotations[k]; !ok {
				dep.Spec.Template.Annotations[k] = v
			}
		}
	}
}

// setEnv merges env into every container (not init containers): a variable already there keeps
// its position with the new value; new ones are appended in order.
func setEnv(pod *corev1.PodSpec, env []corev1.EnvVar) {
	for i := range pod.Containers {
		ctr := &pod.Containers[i]
		for _, e := range env {
			if j := slices.IndexFunc(ctr.Env, func(x corev1.EnvVar) bool { return x.Name == e.Name }); j >= 0 {
				ctr.Env[j] = *e.DeepCopy()
			} else {
				ctr.Env = append(ctr.Env, *e.DeepCopy())
			}
		}
	}
}

// overrideAffinity is OLM's inject.OverrideDeploymentAffinity.
func overrideAffinity(current, override *corev1.Affinity) *corev1.Affinity {
	empty := &corev1.Affinity{}
	if equality.Semantic.DeepEqual(override, empty) {
		return nil
	}
	if current == nil || equality.Semantic.DeepEqual(current, empty) {
		return override.DeepCopy()
	}
	out := current.DeepCopy()
	if override.NodeAffinity != nil {
		if equality.Semantic.DeepEqual(override.NodeAffinity, &corev1.NodeAffinity{}) {
			out.NodeAffinity = nil
		} else {
			out.NodeAffinity = override.NodeAffinity.DeepCopy()
		}
	}
	if override.PodAffinity != nil {
		if equality.Semantic.DeepEqual(override.PodAffinity, &corev1.PodAffinity{}) {
			out.PodAffinity = nil
		} else {
			out.PodAffinity = override.PodAffinity.DeepCopy()
		}
	}
	if override.PodAntiAffinity != nil {
		if equality.Semantic.DeepEqual(override.PodAntiAffinity, &corev1.PodAntiAffinity{}) {
			// OLM's bug, reproduced: an empty podAntiAffinity clears the whole affinity.
			return nil
		}
		out.PodAntiAffinity = override.PodAntiAffinity.DeepCopy()
	}
	if equality.Semantic.DeepEqual(out, empty) {
		return nil
	}
	return out
}

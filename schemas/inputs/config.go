package inputs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/olm-render/olm-render/schemas/diag"
)

// validateConfig checks a Subscription's spec.config as the API server checks the pod template
// OLM writes it into: a value it would refuse fails the render here, naming the field, instead
// of failing the sync that applies it.
func validateConfig(sub *Subscription, problems *diag.Problems) {
	if sub.Spec == nil || sub.Spec.Config == nil {
		return
	}
	c := configCheck{problems: problems, origin: sub.Origin, obj: "Subscription/" + sub.Namespace + "/" + sub.Name}
	cfg := sub.Spec.Config
	c.labels("spec.config.nodeSelector", cfg.NodeSelector)
	c.selector("spec.config.selector", cfg.Selector)
	c.tolerations(cfg.Tolerations)
	c.env(cfg.Env)
	for i, e := range cfg.EnvFrom {
		field := fmt.Sprintf("spec.config.envFrom[%d]", i)
		if e.ConfigMapRef == nil && e.SecretRef == nil {
			c.errorf(field, "required: configMapRef or secretRef")
		}
	}
	c.volumes(cfg)
	c.resources(cfg.Resources)
	c.affinity(cfg.Affinity)
}

// configCheck reports the problems of one Subscription's config.
type configCheck struct {
	problems *diag.Problems
	origin   diag.Origin
	obj      string
}

func (c configCheck) errorf(field, format string, args ...any) {
	c.problems.Errorf(c.origin, c.obj, field, format, args...)
}

// labels checks label keys and values (node selectors, match labels).
func (c configCheck) labels(field string, labels map[string]string) {
	for k, v := range labels {
		for _, msg := range validation.IsQualifiedName(k) {
			c.errorf(fmt.Sprintf("%s[%s]", field, k), "invalid key: %s", msg)
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			c.errorf(fmt.Sprintf("%s[%s]", field, k), "invalid value %q: %s", v, msg)
		}
	}
}

// selector checks a label selector.
func (c configCheck) selector(field string, s *metav1.LabelSelector) {
	if s == nil {
		return
	}
	c.labels(field+".matchLabels", s.MatchLabels)
	if _, err := metav1.LabelSelectorAsSelector(s); err != nil {
		c.errorf(field, "invalid label selector: %v", err)
	}
}

// tolerationOperators and taintEffects are the values the API server accepts.
var (
	tolerationOperators = []corev1.TolerationOperator{"", corev1.TolerationOpExists, corev1.TolerationOpEqual}
	taintEffects        = []corev1.TaintEffect{"", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}
)

func (c configCheck) tolerations(ts []corev1.Toleration) {
	for i, t := range ts {
		field := fmt.Sprintf("spec.config.tolerations[%d]", i)
		if t.Key != "" {
			for _, msg := range validation.IsQualifiedName(t.Key) {
				c.errorf(field+".key", "invalid key: %s", msg)
			}
		}
		if !slices.Contains(tolerationOperators, t.Operator) {
			c.errorf(field+".operator", "must be Exists or Equal, got %q", t.Operator)
		}
		if t.Operator == corev1.TolerationOpExists && t.Value != "" {
			c.errorf(field+".value", "must be empty when operator is Exists")
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			c.errorf(field+".operator", "must be Exists when key is empty")
		}
		if !slices.Contains(taintEffects, t.Effect) {
			c.errorf(field+".effect", "must be NoSchedule, PreferNoSchedule or NoExecute, got %q", t.Effect)
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			c.errorf(field+".tolerationSeconds", "only with effect NoExecute")
		}
	}
}

// env checks environment variable names as the API server does since Kubernetes 1.34
// (printable ASCII, no '='), and that each value has one source.
func (c configCheck) env(env []corev1.EnvVar) {
	for i, e := range env {
		field := fmt.Sprintf("spec.config.env[%d]", i)
		switch {
		case e.Name == "":
			c.errorf(field+".name", "required")
		case strings.Contains(e.Name, "="):
			c.errorf(field+".name", "invalid name %q: may not contain '='", e.Name)
		case !printableASCII(e.Name):
			c.errorf(field+".name", "invalid name %q: printable ASCII characters only", e.Name)
		}
		if e.Value != "" && e.ValueFrom != nil {
			c.errorf(field+".valueFrom", "may not be set with value")
		}
	}
}

func printableASCII(s string) bool {
	for _, r := range s {
		if r < ' ' || r > '~' {
			return false
		}
	}
	return true
}

// volumes checks the names of volumes and mounts, and that a name is declared once.
func (c configCheck) volumes(cfg *v1alpha1.SubscriptionConfig) {
	seen := map[string]bool{}
	for i, v := range cfg.Volumes {
		field := fmt.Sprintf("spec.config.volumes[%d].name", i)
		for _, msg := range validation.IsDNS1123Label(v.Name) {
			c.errorf(field, "invalid name %q: %s", v.Name, msg)
		}
		if seen[v.Name] {
			c.errorf(field, "volume %q declared twice", v.Name)
		}
		seen[v.Name] = true
	}
	for i, m := range cfg.VolumeMounts {
		field := fmt.Sprintf("spec.config.volumeMounts[%d]", i)
		if m.Name == "" {
			c.errorf(field+".name", "required")
		}
		if m.MountPath == "" {
			c.errorf(field+".mountPath", "required")
		}
	}
}

// resources checks that no request exceeds its limit.
func (c configCheck) resources(r *corev1.ResourceRequirements) {
	if r == nil {
		return
	}
	for name, req := range r.Requests {
		if limit, ok := r.Limits[name]; ok && req.Cmp(limit) > 0 {
			c.errorf(fmt.Sprintf("spec.config.resources.requests[%s]", name), "%s must be less than or equal to the limit %s", req.String(), limit.String())
		}
	}
}

// affinity checks the label selectors of pod (anti-)affinity terms and the operators of node
// selector requirements.
func (c configCheck) affinity(a *corev1.Affinity) {
	if a == nil {
		return
	}
	if na := a.NodeAffinity; na != nil && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for i, term := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for j, req := range append(term.MatchExpressions, term.MatchFields...) {
				field := fmt.Sprintf("spec.config.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]", i)
				if !slices.Contains(nodeSelectorOperators, req.Operator) {
					c.errorf(fmt.Sprintf("%s.matchExpressions[%d].operator", field, j), "not a valid node selector operator: %q", req.Operator)
				}
			}
		}
	}
	terms := func(field string, ts []corev1.PodAffinityTerm) {
		for i, t := range ts {
			c.selector(fmt.Sprintf("%s[%d].labelSelector", field, i), t.LabelSelector)
			if t.TopologyKey == "" {
				c.errorf(fmt.Sprintf("%s[%d].topologyKey", field, i), "required")
			}
		}
	}
	if pa := a.PodAffinity; pa != nil {
		terms("spec.config.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution", pa.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		terms("spec.config.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution", pa.RequiredDuringSchedulingIgnoredDuringExecution)
	}
}

var nodeSelectorOperators = []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn,
	corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt}

package olmv1

import (
	"fmt"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
)

// installable are the install modes v1 can install a bundle in.
var installable = []v1alpha1.InstallModeType{
	v1alpha1.InstallModeTypeAllNamespaces, v1alpha1.InstallModeTypeSingleNamespace, v1alpha1.InstallModeTypeOwnNamespace,
}

// modeRules hold the watch the OperatorGroup asks for against the install modes the bundle
// supports and the gates operator-controller runs with (applier/provider.go, then
// render.go validateTargetNamespaces).
func modeRules(b *bundle, s scope, opts Options) []Reason {
	modes := b.modes()
	if !modes[installable[0]] && !modes[installable[1]] && !modes[installable[2]] {
		return []Reason{b.reason(CodeInstallMode, "spec.installModes", ruleProvider,
			"supports install modes %v: operator-controller installs a bundle only in one of [AllNamespaces SingleNamespace OwnNamespace]", modeList(modes))}
	}
	switch s.mode {
	case "":
		return nil
	case v1alpha1.InstallModeTypeAllNamespaces:
		if modes[s.mode] {
			return nil
		}
		return []Reason{s.reason(b, "spec", ruleTargets,
			"watches all namespaces, and the bundle supports only %v: operator-controller installs it only with a watchNamespace (as OLM v0 fails it, UnsupportedOperatorGroup)", modeList(modes))}
	}
	if !modes[s.mode] {
		return []Reason{s.reason(b, "spec.targetNamespaces", ruleTargets,
			"asks for %s (watching %s), which the bundle does not support (it supports %v)", s.mode, s.watch, modeList(modes))}
	}
	if opts.Enabled(SingleOwnNamespaceInstallSupport) {
		return nil
	}
	without := "it installs the bundle for all namespaces instead"
	if !modes[v1alpha1.InstallModeTypeAllNamespaces] {
		without = "it refuses a bundle that does not support AllNamespaces (unsupported bundle: bundle does not support AllNamespaces install mode)"
	}
	r := s.reason(b, "spec.targetNamespaces", ruleProvider,
		"asks for %s (watching %s): a ClusterExtension says so in spec.config.inline.watchNamespace, which operator-controller takes with its SingleOwnNamespaceInstallSupport gate (and the experimental CRD); without it, %s",
		s.mode, s.watch, without)
	r.Gate = SingleOwnNamespaceInstallSupport
	return []Reason{r}
}

// reason is an install-mode reason about the OperatorGroup, which decides the watch (the CSV's
// install modes when the namespace has no group).
func (s scope) reason(b *bundle, field, rule, format string, args ...any) Reason {
	if s.group == nil {
		return b.reason(CodeInstallMode, "spec.installModes", rule, format, args...)
	}
	return Reason{Code: CodeInstallMode, Origin: s.group.Origin, Object: groupObject(s.group), Field: field, Rule: rule,
		Message: fmt.Sprintf(format, args...)}
}

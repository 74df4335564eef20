package permissions

import (
	"slices"
	"strings"
)

// API groups of the resources whose writes are sensitive.
const (
	groupCore          = ""
	groupRBAC          = "rbac.authorization.k8s.io"
	groupAdmission     = "admissionregistration.k8s.io"
	groupAPIExtensions = "apiextensions.k8s.io"
)

// sensitive returns the sorted reasons c matters, or nil. The verbs on secrets are merged into
// one reason, such as "secrets: get,list,watch".
func sensitive(c Change) []string {
	var out []string
	if c.Kind == Widened {
		out = append(out, "cluster-wide")
	}
	for _, g := range c.Grants {
		out = append(out, reasons(g)...)
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return mergeVerbs(slices.Compact(out), secretsReason)
}

// secretsReason prefixes the verbs a change grants on secrets.
const secretsReason = "secrets: "

// mergeVerbs merges the sorted reasons "<prefix><verb>" into one "<prefix><verb>,<verb>...",
// keeping the order sorted.
func mergeVerbs(reasons []string, prefix string) []string {
	var out, verbs []string
	for _, r := range reasons {
		if v, ok := strings.CutPrefix(r, prefix); ok {
			verbs = append(verbs, v)
			continue
		}
		out = append(out, r)
	}
	if len(verbs) > 0 {
		out = append(out, prefix+strings.Join(verbs, ","))
		slices.Sort(out)
	}
	return out
}

// reasons returns why g alone is sensitive.
func reasons(g Grant) []string {
	if isMarker(g) {
		return []string{"unknown permissions"}
	}
	out := verbReasons(g.Verb)
	if g.NonResourceURL != "" {
		if g.NonResourceURL == "*" {
			out = append(out, "wildcard non-resource URL")
		}
		return out
	}
	return append(out, resourceReasons(g)...)
}

// verbReasons returns why a verb is sensitive on anything.
func verbReasons(verb string) []string {
	switch verb {
	case "*":
		return []string{"wildcard verb"}
	case "escalate", "bind", "impersonate":
		return []string{verb}
	}
	return nil
}

// resourceReasons returns why a resource grant is sensitive because of what it applies to.
func resourceReasons(g Grant) []string {
	var out []string
	if g.APIGroup == "*" {
		out = append(out, "wildcard apiGroup")
	}
	if g.Resource == "*" || strings.HasPrefix(g.Resource, "*/") {
		out = append(out, "wildcard resource")
	}
	core := inGroup(g, groupCore)
	switch {
	case core && g.Resource == "secrets":
		out = append(out, secretsReason+g.Verb)
	case core && g.Resource == "nodes/proxy":
		out = append(out, "nodes/proxy")
	case isWrite(g.Verb) && sensitiveWrite(g):
		out = append(out, g.Verb+" "+g.Resource)
	}
	return out
}

// inGroup reports whether g applies to group (literally or through "*").
func inGroup(g Grant, group string) bool {
	return g.APIGroup == group || g.APIGroup == "*"
}

// isWrite reports whether verb creates or modifies objects.
func isWrite(verb string) bool {
	return verb == "create" || verb == "update" || verb == "patch"
}

// sensitiveWrite reports whether writing g's resource lets a subject run code, read
// credentials, change permissions or change how the API server admits objects.
func sensitiveWrite(g Grant) bool {
	switch g.Resource {
	case "pods/exec", "pods/attach", "serviceaccounts/token":
		return inGroup(g, groupCore)
	case "clusterroles", "clusterrolebindings", "roles", "rolebindings":
		return inGroup(g, groupRBAC)
	case "mutatingwebhookconfigurations", "validatingwebhookconfigurations":
		return inGroup(g, groupAdmission)
	case "customresourcedefinitions":
		return inGroup(g, groupAPIExtensions)
	}
	return false
}

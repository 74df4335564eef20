package permissions

import (
	"slices"
	"strings"
)

// Summary returns one line per change for humans, e.g. "operators/etcd-operator gains
// cluster-wide get,list,watch on secrets (sensitive: secrets: get,list,watch)" or "operators/etcd-operator loses get on deployments in group apps in namespace
// operators".
func Summary(changes []Change) []string {
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		out = append(out, summarize(c))
	}
	return out
}

// summarize returns the line of one change.
func summarize(c Change) string {
	if len(c.Grants) == 0 {
		return c.Subject + " " + c.Kind + " nothing"
	}
	g := c.Grants[0]
	line := c.Subject + " " + action(c.Kind, g.Namespace) + what(c)
	if g.Namespace != "" {
		line += " in namespace " + g.Namespace
	}
	if len(c.Sensitive) > 0 {
		line += " (sensitive: " + strings.Join(c.Sensitive, "; ") + ")"
	}
	return line
}

// action returns the verb phrase of a change kind, with "cluster-wide" when it applies.
func action(kind, namespace string) string {
	phrase := kind + " "
	switch kind {
	case Added:
		phrase = "gains "
	case Removed:
		phrase = "loses "
	case Widened:
		phrase = "widens to "
	}
	if namespace == "" {
		phrase += "cluster-wide "
	}
	return phrase
}

// what describes the grants of a change: "<verbs> on <targets>", or a marker's text.
func what(c Change) string {
	g := c.Grants[0]
	if isMarker(g) {
		return "unknown permissions " + g.Resource
	}
	verbs := distinct(c.Grants, func(g Grant) string { return g.Verb })
	return strings.Join(verbs, ",") + " on " + targets(c.Grants)
}

// targets describes the resources or non-resource URLs of grants sharing apiGroup and
// resourceName.
func targets(grants []Grant) string {
	g := grants[0]
	if g.NonResourceURL != "" {
		urls := distinct(grants, func(g Grant) string { return g.NonResourceURL })
		return plural("non-resource URL", len(urls)) + " " + strings.Join(urls, ", ")
	}
	out := strings.Join(distinct(grants, func(g Grant) string { return g.Resource }), ", ")
	switch g.APIGroup {
	case "":
	case "*":
		out += " in all groups"
	default:
		out += " in group " + g.APIGroup
	}
	if g.ResourceName != "" {
		out += " named " + g.ResourceName
	}
	return out
}

// distinct returns the sorted distinct values of field over grants.
func distinct(grants []Grant, field func(Grant) string) []string {
	out := make([]string, 0, len(grants))
	for _, g := range grants {
		out = append(out, field(g))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// plural adds an "s" to noun unless n is 1.
func plural(noun string, n int) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

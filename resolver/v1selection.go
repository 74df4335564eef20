package resolver

import (
	"fmt"
	"strings"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// withoutDependencies marks the selections of a namespace resolved without dependencies with
// OLM v0's error.
func withoutDependencies(nr *NamespaceResult, v0 error) *NamespaceResult {
	msg := firstLine(v0.Error())
	for _, sel := range nr.Selections {
		sel.WithoutDependencies = msg
	}
	return nr
}

// withoutDependenciesWarning says that a namespace was resolved without dependencies, on its
// first Subscription.
func withoutDependenciesWarning(subs []*inputs.Subscription, v0 error) diag.Problem {
	s := subs[0]
	names := make([]string, len(subs))
	for i, sub := range subs {
		names[i] = sub.Name
	}
	return diag.Problem{Severity: diag.Warning, Origin: s.Origin, Object: "Subscription/" + s.Namespace + "/" + s.Name,
		Message: fmt.Sprintf("OLM v0 cannot resolve namespace %s (%s): its Subscriptions (%s) are judged at the bundles OLM v1 would pin, chosen without dependencies; operator-controller refuses a bundle that declares any",
			s.Namespace, firstLine(v0.Error()), strings.Join(names, ", "))}
}

// firstLine returns the first line of a message.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

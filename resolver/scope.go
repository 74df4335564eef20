package resolver

import (
	"fmt"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// knownGlobalNamespaces are the global catalog namespaces of the OLM installs users meet.
var knownGlobalNamespaces = map[string]string{
	"openshift-marketplace": "OpenShift",
	"olm":                   "upstream OLM",
}

// scopeProblems fails every Subscription whose CatalogSource sits in a namespace OLM would not
// look in for it: its own namespace and the global catalog namespace are all OLM sees, so such a
// Subscription never resolves in a cluster. When the namespace is a known global one (OpenShift's
// openshift-marketplace), the fix is usually --global-catalog-namespace.
func scopeProblems(set *inputs.Set, global string) diag.Problems {
	var out diag.Problems
	for _, s := range set.Subscriptions {
		if s.Spec == nil || s.Spec.CatalogSourceNamespace == "" {
			continue
		}
		src := s.Spec.CatalogSourceNamespace
		if src == s.Namespace || src == global {
			continue
		}
		msg := fmt.Sprintf("CatalogSource %s/%s is in namespace %s, which OLM does not search for a Subscription in %s: it looks in the Subscription's own namespace and in the global catalog namespace %q",
			src, s.Spec.CatalogSource, src, s.Namespace, global)
		if who, ok := knownGlobalNamespaces[src]; ok {
			msg += fmt.Sprintf("; %s is %s's global catalog namespace: pass --global-catalog-namespace %s (or set options.globalCatalogNamespace in the project file, olm-render.yaml, which olm-render init --openshift writes)", src, who, src)
		} else {
			msg += fmt.Sprintf("; move the CatalogSource to %s or to %s", s.Namespace, global)
		}
		out.Add(diag.Problem{Severity: diag.Error, Origin: s.Origin, Object: "Subscription/" + s.Namespace + "/" + s.Name, Field: "spec.sourceNamespace", Message: msg})
	}
	return out
}

package render

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

const providedAPIsAnnotation = "olm.providedAPIs"

// parseAPISet parses an olm.providedAPIs value: "Kind.version.group,..." (OLM's
// GVKStringToProvidedAPISet).
func parseAPISet(s string) []schema.GroupVersionKind {
	s = strings.ReplaceAll(s, " ", "")
	if s == "" {
		return nil
	}
	var out []schema.GroupVersionKind
	for _, part := range strings.Split(s, ",") {
		gvk, _ := schema.ParseKindArg(part)
		if gvk != nil {
			out = append(out, *gvk)
		}
	}
	return out
}

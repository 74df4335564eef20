package fn

import (
	"errors"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
)

// problemsOf is implemented by errors that carry problems (resolver and render failures).
type problemsOf interface{ Problems() diag.Problems }

// resultsOf turns an error into results, one per problem.
func resultsOf(err error) framework.Results {
	var ps diag.Problems
	var po problemsOf
	switch {
	case errors.As(err, &po):
		ps = po.Problems()
	case errors.As(err, &ps):
	default:
		ps = diag.Problems{{Severity: diag.Error, Message: err.Error()}}
	}
	out := make(framework.Results, 0, len(ps))
	for _, p := range ps {
		sev := framework.Error
		if !p.IsError() {
			sev = framework.Warning
		}
		out = append(out, resultOf(p, sev))
	}
	return out
}

// apiVersions of the kinds problems name.
var apiVersions = map[string]string{
	"Namespace": "v1", "OperatorGroup": "operators.coreos.com/v1", "Subscription": "operators.coreos.com/v1alpha1",
	"CatalogSource": "operators.coreos.com/v1alpha1", "ClusterServiceVersion": "operators.coreos.com/v1alpha1",
	"OLMConfig": "operators.coreos.com/v1", "OperatorCondition": "operators.coreos.com/v2",
}

// resultOf converts a problem: "Kind/namespace/name" objects become resourceRefs; a problem of
// no such object names its file in the message.
func resultOf(p diag.Problem, sev framework.Severity) *framework.Result {
	r := &framework.Result{Message: p.Message, Severity: sev}
	parts := strings.Split(p.Object, "/")
	if av, ok := apiVersions[parts[0]]; ok && len(parts) >= 2 {
		ref := &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: av, Kind: parts[0]}}
		ref.Name = parts[len(parts)-1]
		if len(parts) == 3 {
			ref.Namespace = parts[1]
		}
		r.ResourceRef = ref
		if p.Field != "" {
			r.Field = &framework.Field{Path: p.Field}
		}
	} else if p.Object != "" {
		r.Message = p.Object + ": " + r.Message
		if p.Field != "" {
			r.Message = p.Object + ": " + p.Field + ": " + p.Message
		}
	}
	if p.Origin.File != "" {
		r.File = &framework.File{Path: filepath.ToSlash(p.Origin.File), Index: p.Origin.Index}
		if r.ResourceRef == nil {
			// kustomize prints a result's object and field, never its file: name it in the message.
			r.Message = p.Origin.String() + ": " + r.Message
		}
	}
	return r
}

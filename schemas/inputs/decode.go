package inputs

import (
	"encoding/json"
	"errors"
	"fmt"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/schemas/diag"
)

const operatorsGroup = "operators.coreos.com"

// objectName names an object in messages: Kind/namespace/name or Kind/name.
func objectName(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return u.GetKind() + "/" + ns + "/" + u.GetName()
	}
	return u.GetKind() + "/" + u.GetName()
}

// decode converts an object into a typed API object, as the API server's strict field
// validation reads it (field names case-sensitive). Wrong field types are errors naming the
// field; unknown fields are problems of severity unknown, each with a did-you-mean. (Repeated
// keys never get here: decoding the documents refuses them.)
func decode(it Item, into any, unknown diag.Severity, problems *diag.Problems) bool {
	data, err := json.Marshal(it.Object.Object)
	if err != nil {
		problems.Errorf(it.Origin, objectName(it.Object), "", "cannot encode: %v", err)
		return false
	}
	fields, err := UnknownFields(data, into)
	if err != nil {
		problems.Add(decodeProblem(it, err))
		return false
	}
	for _, f := range fields {
		problems.Add(diag.Problem{Severity: unknown, Origin: it.Origin, Object: objectName(it.Object),
			Field: f.Path, Message: f.message(unknown)})
	}
	return true
}

// message says what is wrong with an unknown field of an object the API server would
// keep without it, the field meant first; severity says whether it fails the run.
func (f UnknownField) message(severity diag.Severity) string {
	msg := "unknown field"
	if f.Suggestion != "" {
		msg += ": did you mean " + f.Suggestion + "?"
	}
	if severity == diag.Warning {
		return msg + " (the API server would drop it)"
	}
	return msg + " (the API server would drop it and the render would not be what you wrote; --strict=false makes this a warning)"
}

func decodeProblem(it Item, err error) diag.Problem {
	p := diag.Problem{Severity: diag.Error, Origin: it.Origin, Object: objectName(it.Object)}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		p.Field = typeErr.Field
		p.Message = fmt.Sprintf("wrong type: got %s, want %s", typeErr.Value, typeErr.Type)
		return p
	}
	p.Message = err.Error()
	return p
}

// kindOf classifies an object: the kinds a render reads, or "" for any other.
func kindOf(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	switch {
	case gvk.Group == "" && gvk.Version == "v1" && gvk.Kind == "Namespace":
		return "Namespace"
	case gvk.Group != operatorsGroup:
		return ""
	case gvk.Kind == "OperatorGroup" && (gvk.Version == "v1" || gvk.Version == "v1alpha2"):
		return "OperatorGroup"
	case gvk.Kind == "Subscription" && gvk.Version == "v1alpha1":
		return "Subscription"
	case gvk.Kind == "CatalogSource" && gvk.Version == "v1alpha1":
		return "CatalogSource"
	case gvk.Kind == "OLMConfig" && gvk.Version == "v1":
		return "OLMConfig"
	case gvk.Kind == "OperatorCondition" && (gvk.Version == "v2" || gvk.Version == "v1"):
		return "OperatorCondition"
	}
	return ""
}

// add decodes one item into the set. Unknown fields of the kinds a render interprets are
// problems of severity unknown; those of Namespaces, which pass through as declared, warnings.
func (s *Set) add(it Item, unknown diag.Severity, problems *diag.Problems) {
	u := it.Object
	switch kindOf(u) {
	case "Namespace":
		ns := &Namespace{Origin: it.Origin}
		if decode(it, &ns.Namespace, diag.Warning, problems) {
			s.Namespaces = append(s.Namespaces, ns)
		}
	case "OperatorGroup":
		og := &OperatorGroup{Origin: it.Origin, SourceAPIVersion: u.GetAPIVersion()}
		if decode(it, &og.OperatorGroup, unknown, problems) {
			og.APIVersion = operatorsv1.SchemeGroupVersion.String()
			s.OperatorGroups = append(s.OperatorGroups, og)
		}
	case "Subscription":
		sub := &Subscription{Origin: it.Origin}
		if decode(it, &sub.Subscription, unknown, problems) {
			s.Subscriptions = append(s.Subscriptions, sub)
		}
	case "CatalogSource":
		cs := &CatalogSource{Origin: it.Origin, base: it.base()}
		if decode(it, &cs.CatalogSource, unknown, problems) {
			s.CatalogSources = append(s.CatalogSources, cs)
		}
	case "OLMConfig":
		c := &OLMConfig{Origin: it.Origin}
		if decode(it, &c.OLMConfig, unknown, problems) {
			s.OLMConfigs = append(s.OLMConfigs, c)
		}
	case "OperatorCondition":
		c := &OperatorCondition{Origin: it.Origin}
		if decode(it, &c.OperatorCondition, unknown, problems) {
			s.OperatorConditions = append(s.OperatorConditions, c)
		}
	default:
		if !checkKind(it, problems) {
			return
		}
		s.Others = append(s.Others, &Object{Unstructured: u, Origin: it.Origin})
		s.addMirrors(it, problems)
	}
}

package inputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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

// decode converts an object into a typed API object. Wrong field types are errors naming the
// field; unknown fields are warnings (the API server would drop them).
func decode(it Item, into any, problems *diag.Problems) bool {
	data, err := json.Marshal(it.Object.Object)
	if err != nil {
		problems.Errorf(it.Origin, objectName(it.Object), "", "cannot encode: %v", err)
		return false
	}
	strict := json.NewDecoder(bytes.NewReader(data))
	strict.DisallowUnknownFields()
	err = strict.Decode(into)
	if err == nil {
		return true
	}
	if field, ok := unknownField(err); ok {
		problems.Warnf(it.Origin, objectName(it.Object), field, "unknown field; the API server would drop it")
		if err := json.Unmarshal(data, into); err == nil {
			return true
		} else {
			problems.Add(decodeProblem(it, err))
			return false
		}
	}
	problems.Add(decodeProblem(it, err))
	return false
}

func unknownField(err error) (string, bool) {
	const prefix = "json: unknown field "
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	return strings.Trim(strings.TrimPrefix(msg, prefix), `"`), true
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
	case gvk.Kind == "OperatorCondition" && gvk.Version == "v2":
		return "OperatorCondition"
	}
	return ""
}

// add decodes one item into the set.
func (s *Set) add(it Item, problems *diag.Problems) {
	u := it.Object
	switch kindOf(u) {
	case "Namespace":
		ns := &Namespace{Origin: it.Origin}
		if decode(it, &ns.Namespace, problems) {
			s.Namespaces = append(s.Namespaces, ns)
		}
	case "OperatorGroup":
		og := &OperatorGroup{Origin: it.Origin, SourceAPIVersion: u.GetAPIVersion()}
		if decode(it, &og.OperatorGroup, problems) {
			og.APIVersion = operatorsv1.SchemeGroupVersion.String()
			s.OperatorGroups = append(s.OperatorGroups, og)
		}
	case "Subscription":
		sub := &Subscription{Origin: it.Origin}
		if decode(it, &sub.Subscription, problems) {
			s.Subscriptions = append(s.Subscriptions, sub)
		}
	case "CatalogSource":
		cs := &CatalogSource{Origin: it.Origin, base: it.base()}
		if decode(it, &cs.CatalogSource, problems) {
			s.CatalogSources = append(s.CatalogSources, cs)
		}
	case "OLMConfig":
		c := &OLMConfig{Origin: it.Origin}
		if decode(it, &c.OLMConfig, problems) {
			s.OLMConfigs = append(s.OLMConfigs, c)
		}
	case "OperatorCondition":
		c := &OperatorCondition{Origin: it.Origin}
		if decode(it, &c.OperatorCondition, problems) {
			s.OperatorConditions = append(s.OperatorConditions, c)
		}
	default:
		s.Others = append(s.Others, &Object{Unstructured: u, Origin: it.Origin})
		s.addMirrors(it, problems)
	}
}

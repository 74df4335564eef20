package inputs

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/yamlkeys"
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
		problems.Add(decodeProblem(it, into, err))
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

// decodeProblem describes why an object does not decode into its type, naming the field: a
// value of the wrong type (the decoder names its field), or a value the type refuses (a
// quantity, a time), whose field is found by decoding the object without it (failingField).
func decodeProblem(it Item, into any, err error) diag.Problem {
	p := diag.Problem{Severity: diag.Error, Origin: it.Origin, Object: objectName(it.Object)}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		p.Field = typeErr.Field
		p.Message = fmt.Sprintf("wrong type: want %s, got %s", diag.Want(typeErr.Type), diag.Got(typeErr.Value))
		return p
	}
	field, value := failingField(it.Object.Object, reflect.TypeOf(into).Elem())
	p.Field, p.Message = field, valueMessage(value, err)
	return p
}

// valueMessage says what is wrong with a value the API server would refuse, and what it wants.
func valueMessage(value any, err error) string {
	var timeErr *time.ParseError
	switch {
	case errors.Is(err, resource.ErrFormatWrong), errors.Is(err, resource.ErrNumeric), errors.Is(err, resource.ErrSuffix):
		return fmt.Sprintf("%s is not a quantity: want a number with an optional suffix, such as 500m, 2 or 64Mi (the API server refuses it)", quote(value))
	case errors.As(err, &timeErr):
		return fmt.Sprintf("%s is not a time: want RFC 3339, such as 2024-01-02T15:04:05Z (the API server refuses it)", quote(value))
	}
	return err.Error()
}

// quote shows a value of an input in a message.
func quote(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// failingField finds the field of obj whose value keeps obj from decoding into a value of type
// t, and that value: it sets one field or list element at a time to null and goes down into the
// one without which the object decodes. It returns "" when no single field is to blame.
func failingField(obj map[string]any, t reflect.Type) (string, any) {
	root := runtime.DeepCopyJSON(obj)
	fails := func() bool {
		data, err := json.Marshal(root)
		if err != nil {
			return true
		}
		_, err = kjson.UnmarshalStrict(data, reflect.New(t).Interface())
		return err != nil
	}
	path, cur := "", any(root)
	for depth := 0; depth < maxFieldDepth; depth++ {
		step, next, ok := blame(cur, fails)
		if !ok {
			return path, cur
		}
		path, cur = joinPath(path, step), next
	}
	return path, cur
}

// maxFieldDepth bounds how deep failingField looks.
const maxFieldDepth = 32

// blame returns the key or index of the value of a map or list without which fails no longer
// holds, and that value.
func blame(cur any, fails func() bool) (string, any, bool) {
	switch c := cur.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(c)) {
			v := c[k]
			c[k] = nil
			ok := !fails()
			c[k] = v
			if ok {
				return k, v, true
			}
		}
	case []any:
		for i, v := range c {
			c[i] = nil
			ok := !fails()
			c[i] = v
			if ok {
				return fmt.Sprintf("[%d]", i), v, true
			}
		}
	}
	return "", nil, false
}

// joinPath appends a key or an index ([2]) to a field path.
func joinPath(at, step string) string {
	if strings.HasPrefix(step, "[") {
		return at + step
	}
	return yamlkeys.Join(at, step)
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

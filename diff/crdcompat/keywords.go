package crdcompat

import (
	"strconv"
	"strings"
)

// preserveUnknownFields is the keyword that keeps unknown fields of an object.
const preserveUnknownFields = "x-kubernetes-preserve-unknown-fields"

// bound is a numeric constraint keyword; upper bounds may only rise, lower ones only fall.
type bound struct {
	keyword string
	rule    string
	upper   bool
}

// bounds lists the numeric constraint keywords the rules check.
func bounds() []bound {
	return []bound{
		{keyword: "maximum", rule: "maximum", upper: true},
		{keyword: "maxLength", rule: "max-length", upper: true},
		{keyword: "maxItems", rule: "max-items", upper: true},
		{keyword: "maxProperties", rule: "max-properties", upper: true},
		{keyword: "minimum", rule: "minimum"},
		{keyword: "minLength", rule: "min-length"},
		{keyword: "minItems", rule: "min-items"},
		{keyword: "minProperties", rule: "min-properties"},
	}
}

// compareKeywords applies every keyword rule to a node present on both sides.
func (w *walker) compareKeywords(p schemaPair) error {
	checks := []func(*walker, schemaPair) error{
		(*walker).checkType,
		(*walker).checkRequired,
		(*walker).checkEnum,
		(*walker).checkBounds,
		(*walker).checkDefault,
		(*walker).checkPreserveUnknown,
	}
	for _, check := range checks {
		if err := check(w, p); err != nil {
			return err
		}
	}
	w.checkUnhandled(p)
	return nil
}

// checkType reports any change of type, including one set or unset.
func (w *walker) checkType(p schemaPair) error {
	oldType, err := stringField(p.old, "type", "type")
	if err != nil {
		return err
	}
	newType, err := stringField(p.new, "type", "type")
	if err != nil {
		return err
	}
	if oldType != newType {
		w.add("type", p.path, true, "type changed from %q to %q", oldType, newType)
	}
	return nil
}

// checkRequired reports names added to required (breaking) and dropped from it.
func (w *walker) checkRequired(p schemaPair) error {
	oldRequired, err := stringList(p.old, "required", "required")
	if err != nil {
		return err
	}
	newRequired, err := stringList(p.new, "required", "required")
	if err != nil {
		return err
	}
	for _, name := range missingFrom(newRequired, setOf(oldRequired)) {
		w.add("required", joinProperty(p.path, name), true, "newly required")
	}
	for _, name := range missingFrom(oldRequired, setOf(newRequired)) {
		w.add("required", joinProperty(p.path, name), false, "no longer required")
	}
	return nil
}

// checkEnum reports an enum added or values removed (breaking), or values added or the enum
// dropped.
func (w *walker) checkEnum(p schemaPair) error {
	oldValues, err := enumValues(p.old)
	if err != nil {
		return err
	}
	newValues, err := enumValues(p.new)
	if err != nil {
		return err
	}
	removed := missingFrom(oldValues, setOf(newValues))
	added := missingFrom(newValues, setOf(oldValues))
	switch {
	case len(oldValues) == 0 && len(newValues) > 0:
		w.add("enum", p.path, true, "enum %s added where there was none", formatList(newValues))
	case len(newValues) == 0 && len(oldValues) > 0:
		w.add("enum", p.path, false, "enum %s removed", formatList(oldValues))
	case len(removed) > 0:
		w.add("enum", p.path, true, "enum values %s removed%s", formatList(removed), alsoAdded(added))
	case len(added) > 0:
		w.add("enum", p.path, false, "enum values %s added", formatList(added))
	}
	return nil
}

// enumValues returns the enum values of a node as sorted, unique JSON strings.
func enumValues(schema map[string]any) ([]string, error) {
	list, err := listField(schema, "enum", "enum")
	if err != nil {
		return nil, err
	}
	values := make([]string, 0, len(list))
	for _, v := range list {
		values = append(values, canonical(v))
	}
	return sortedUnique(values), nil
}

// alsoAdded completes an enum removal message with the values added alongside.
func alsoAdded(added []string) string {
	if len(added) == 0 {
		return ""
	}
	return ", values " + formatList(added) + " added"
}

// formatList renders values as "[a, b]".
func formatList(values []string) string {
	return "[" + strings.Join(values, ", ") + "]"
}

// checkBounds applies every numeric constraint rule.
func (w *walker) checkBounds(p schemaPair) error {
	for _, b := range bounds() {
		if err := w.checkBound(p, b); err != nil {
			return err
		}
	}
	return nil
}

// checkBound reports a bound newly set or tightened (breaking), or loosened or dropped.
func (w *walker) checkBound(p schemaPair, b bound) error {
	oldValue, oldSet, err := numberField(p.old, b.keyword)
	if err != nil {
		return err
	}
	newValue, newSet, err := numberField(p.new, b.keyword)
	if err != nil {
		return err
	}
	switch {
	case !oldSet && newSet:
		w.add(b.rule, p.path, true, "%s %s set where there was no limit", b.keyword, formatNumber(newValue))
	case oldSet && !newSet:
		w.add(b.rule, p.path, false, "%s %s removed", b.keyword, formatNumber(oldValue))
	case oldSet && oldValue != newValue:
		tighter := (newValue < oldValue) == b.upper
		w.add(b.rule, p.path, tighter, "%s %s from %s to %s", b.keyword, direction(oldValue, newValue),
			formatNumber(oldValue), formatNumber(newValue))
	}
	return nil
}

// direction says whether a number went up or down.
func direction(old, new float64) string {
	if new < old {
		return "decreased"
	}
	return "increased"
}

// formatNumber renders a bound without exponent or trailing zeros.
func formatNumber(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// checkDefault reports a default added, removed or changed, all breaking as in OLM v1.
func (w *walker) checkDefault(p schemaPair) error {
	oldDefault, oldSet := lookup(p.old, "default")
	newDefault, newSet := lookup(p.new, "default")
	oldJSON, newJSON := shorten(canonical(oldDefault)), shorten(canonical(newDefault))
	switch {
	case !oldSet && newSet:
		w.add("default", p.path, true, "default %s added", newJSON)
	case oldSet && !newSet:
		w.add("default", p.path, true, "default %s removed", oldJSON)
	case oldSet && canonical(oldDefault) != canonical(newDefault):
		w.add("default", p.path, true, "default changed from %s to %s", oldJSON, newJSON)
	}
	return nil
}

// shorten cuts long values in messages.
func shorten(s string) string {
	const limit = 80
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// checkPreserveUnknown reports x-kubernetes-preserve-unknown-fields turned off (breaking) or on.
func (w *walker) checkPreserveUnknown(p schemaPair) error {
	oldValue, err := boolField(p.old, preserveUnknownFields, preserveUnknownFields)
	if err != nil {
		return err
	}
	newValue, err := boolField(p.new, preserveUnknownFields, preserveUnknownFields)
	if err != nil {
		return err
	}
	if oldValue != newValue {
		w.add("preserve-unknown-fields", p.path, oldValue, "%s changed from %t to %t",
			preserveUnknownFields, oldValue, newValue)
	}
	return nil
}

// checkUnhandled reports, as not breaking, changes to keywords no rule judges.
func (w *walker) checkUnhandled(p schemaPair) {
	for _, keyword := range sortedKeys(p.old, p.new) {
		if handledKeyword(keyword) || schemaValued(p, keyword) {
			continue
		}
		oldValue, oldSet := lookup(p.old, keyword)
		newValue, newSet := lookup(p.new, keyword)
		if oldSet != newSet || canonical(oldValue) != canonical(newValue) {
			w.add("unhandled", p.path, false, "keyword %q changed (not checked for compatibility)", keyword)
		}
	}
}

// handledKeyword tells whether a rule, the walk, or the ignore list covers a keyword.
func handledKeyword(keyword string) bool {
	switch keyword {
	case "type", "required", "enum", "default", preserveUnknownFields, "description",
		"properties", "items",
		"maximum", "maxLength", "maxItems", "maxProperties",
		"minimum", "minLength", "minItems", "minProperties":
		return true
	}
	return false
}

// schemaValued tells whether additionalProperties is a schema on either side, which the walk
// covers; a boolean additionalProperties on both sides is left to checkUnhandled.
func schemaValued(p schemaPair, keyword string) bool {
	if keyword != "additionalProperties" {
		return false
	}
	_, oldSchema := p.old[keyword].(map[string]any)
	_, newSchema := p.new[keyword].(map[string]any)
	return oldSchema || newSchema
}

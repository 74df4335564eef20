package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Setting is one option as the command-line flag of the same meaning.
type Setting struct {
	// Field is the option's field, as the file names it (options.kubeVersion).
	Field string
	// Flag is the flag's name, without dashes (kube-version).
	Flag string
	// Value is the flag's value, as typed (v1.31.0, true).
	Value string
}

// optionFlags names, for each option, the flag it stands for, in the order the flags apply.
var optionFlags = []struct{ field, flag string }{
	{"olm", "olm"},
	{"globalCatalogNamespace", "global-catalog-namespace"},
	{"certProvider", "cert-provider"},
	{"kubeVersion", "kube-version"},
	{"strict", "strict"},
	{"allowEmpty", "allow-empty"},
	{"loadRestrictor", "load-restrictor"},
	{"for", "for"},
	{"copiedCSVs", "copied-csvs"},
	{"keepIntent", "keep-intent"},
	{"includeOLMCRDs", "include-olm-crds"},
	{"allowFailed", "allow-failed"},
	{"status", "status"},
	{"operatorController", "operator-controller"},
	{"featureGates", "feature-gates"},
	{"allowPartial", "allow-partial"},
}

// FlagOf returns the flag an option stands for ("" when none).
func FlagOf(field string) string {
	for _, f := range optionFlags {
		if f.field == field {
			return f.flag
		}
	}
	return ""
}

// Settings returns the options the file sets, as flags, in a fixed order: an option left out
// (or false, for the options that default to false) sets nothing.
func (o Options) Settings() ([]Setting, error) {
	m, err := asMap(o)
	if err != nil {
		return nil, err
	}
	var out []Setting
	for _, f := range optionFlags {
		v, ok := m[f.field]
		if !ok {
			continue
		}
		var value string
		switch v := v.(type) {
		case bool:
			value = strconv.FormatBool(v)
		case string:
			value = v
		case []any:
			items := make([]string, len(v))
			for i, e := range v {
				items[i] = fmt.Sprint(e)
			}
			value = strings.Join(items, ",")
		default:
			return nil, fmt.Errorf("options.%s: want a string or a boolean, got %v", f.field, v)
		}
		out = append(out, Setting{Field: "options." + f.field, Flag: f.flag, Value: value})
	}
	return out, nil
}

// ClusterOptions returns the options of one cluster: the project's, each overridden by the
// cluster's own.
func (c *Config) ClusterOptions(cl Cluster) (Options, error) {
	if len(bytes.TrimSpace(cl.Options)) == 0 || string(bytes.TrimSpace(cl.Options)) == "null" {
		return c.Options, nil
	}
	base, err := asMap(c.Options)
	if err != nil {
		return Options{}, err
	}
	var own map[string]any
	if err := json.Unmarshal(cl.Options, &own); err != nil {
		return Options{}, fmt.Errorf("want a map of options: %w", err)
	}
	for k, v := range own {
		base[k] = v
	}
	merged, err := json.Marshal(base)
	if err != nil {
		return Options{}, err
	}
	var out Options
	dec := json.NewDecoder(bytes.NewReader(merged))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return Options{}, describeDecode(err)
	}
	return out, nil
}

// asMap is o as the file would hold it: only the options set.
func asMap(o Options) (map[string]any, error) {
	data, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// describeDecode says what a decoding error means in the file's terms, not Go's.
func describeDecode(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: want a %s, got a %s", te.Field, te.Type.Kind(), te.Value)
	}
	return err
}

// OwnOptions lists the options a cluster sets itself, as the file names them (kubeVersion).
func (c Cluster) OwnOptions() []string {
	var own map[string]any
	if json.Unmarshal(c.Options, &own) != nil {
		return nil
	}
	out := make([]string, 0, len(own))
	for k := range own {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Overlay returns base with every option over sets in its place (the functionConfig over the
// project file's).
func Overlay(base, over Options) (Options, error) {
	raw, err := json.Marshal(over)
	if err != nil {
		return Options{}, err
	}
	return (&Config{Options: base}).ClusterOptions(Cluster{Options: raw})
}

package project

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	k8syaml "sigs.k8s.io/yaml"
)

// OpenShiftKubeVersions maps each OpenShift minor version to the Kubernetes minor version it
// runs (its first patch release): what a project's kubeVersion is for that OpenShift.
var OpenShiftKubeVersions = map[string]string{
	"4.12": "v1.25.0", "4.13": "v1.26.0", "4.14": "v1.27.0", "4.15": "v1.28.0", "4.16": "v1.29.0",
	"4.17": "v1.30.0", "4.18": "v1.31.0", "4.19": "v1.32.0", "4.20": "v1.33.0", "4.21": "v1.34.0",
}

// OpenShift returns the options of a repository for OpenShift clusters: OLM v0 runs there,
// and the global catalogs are in openshift-marketplace. version (4.18), when given, sets the
// Kubernetes version that OpenShift runs.
func OpenShift(version string) (Options, error) {
	o := Options{OLM: "running", GlobalCatalogNamespace: "openshift-marketplace"}
	if version == "" {
		return o, nil
	}
	kube, ok := OpenShiftKubeVersions[version]
	if !ok {
		return o, fmt.Errorf("unknown OpenShift version %q: want one of 4.12 to 4.21 (or set the Kubernetes version with --kube-version)", version)
	}
	o.KubeVersion = kube
	return o, nil
}

// comments explain each option a new project file sets, by field.
var comments = map[string]string{
	"olm": "The cluster's OLM. running: OLM v0 stays in charge (OpenShift): the render applies the\n" +
		"pinned intent (CatalogSources by digest, Manual Subscriptions at their locks, the approval\n" +
		"contract) and predicts the rest under prediction/. absent: its controllers do not run, and\n" +
		"the render is the install.",
	"globalCatalogNamespace": "The namespace whose CatalogSources every namespace sees.",
	"kubeVersion":            "The clusters' Kubernetes version: CSVs needing a newer one stay Pending.",
	"certProvider":           "Where OLM does not run: who serves the certificates of webhooks and APIServices.",
	"strict":                 "true: every warning about the inputs fails the render.",
}

// Encode writes a project file: the RenderConfig, each option with a comment saying what it
// does, under a header saying what the file is.
func Encode(cfg *Config) ([]byte, error) {
	data, err := k8syaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encoding the project file: %w", err)
	}
	node, err := yaml.Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("encoding the project file: %w", err)
	}
	node.YNode().HeadComment = "olm-render's project file: every olm-render command run on this repository reads it,\n" +
		"and a flag given on the command line overrides it. Paths are relative to this file.\n" +
		"Fields: olm-render's schemas/renderconfig.krmfunctiondefinition.yaml."
	if opts := node.Field("options"); opts != nil {
		for field, comment := range comments {
			if f := opts.Value.Field(field); f != nil {
				f.Key.YNode().HeadComment = comment
			}
		}
	}
	out, err := node.String()
	if err != nil {
		return nil, fmt.Errorf("encoding the project file: %w", err)
	}
	return []byte(out), nil
}

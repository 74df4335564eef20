package main

import (
	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"

	"github.com/olm-render/olm-render/fn"
)

// newFnCommand is the KRM function: a ResourceList on stdin, one on stdout; or, standalone,
// `olm-render fn CONFIG INPUT...` printing the objects.
func newFnCommand() *cobra.Command {
	cmd := command.Build(&fn.Processor{}, command.StandaloneEnabled, false)
	cmd.Use = "fn [RENDERCONFIG INPUT...]"
	cmd.Short = "Run as a KRM function (kustomize transformer): ResourceList in, ResourceList out"
	cmd.Long = "fn reads a ResourceList on stdin (functionConfig: a RenderConfig, apiVersion olm-render.dev/v1alpha1),\n" +
		"replaces the Subscriptions, OperatorGroups and CatalogSources by the objects OLM would create, keeps\n" +
		"Namespaces and every other resource, and writes the ResourceList on stdout. Problems are results;\n" +
		"any error result exits non-zero. Standalone: olm-render fn config.yaml input.yaml..."
	return cmd
}

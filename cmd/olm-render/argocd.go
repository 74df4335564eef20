package main

import (
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// argoParam reads an Argo CD plugin parameter: PARAM_<NAME> (from the Application's
// spec.source.plugin.parameters), else ARGOCD_ENV_OLM_RENDER_<NAME> (from plugin.env), else def.
func argoParam(name, def string) string {
	if v, ok := os.LookupEnv("PARAM_" + name); ok {
		return v
	}
	if v, ok := os.LookupEnv("ARGOCD_ENV_OLM_RENDER_" + name); ok {
		return v
	}
	return def
}

// argoArray reads an array parameter: PARAM_<NAME>_0, _1, ... (Argo flattens arrays so), else a
// comma-separated ARGOCD_ENV_OLM_RENDER_<NAME>.
func argoArray(name string) []string {
	prefix := "PARAM_" + name + "_"
	var keys []string
	values := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
			values[k] = v
		}
	}
	if len(keys) > 0 {
		sort.Slice(keys, func(i, j int) bool {
			a, b := strings.TrimPrefix(keys[i], prefix), strings.TrimPrefix(keys[j], prefix)
			if len(a) != len(b) {
				return len(a) < len(b)
			}
			return a < b
		})
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = values[k]
		}
		return out
	}
	var out []string
	for _, v := range strings.Split(os.Getenv("ARGOCD_ENV_OLM_RENDER_"+name), ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// newArgoCDCommand is the Argo CD config management plugin's generate command. It renders the
// application's source directory and writes only objects to stdout; on any failure it writes
// nothing there and exits non-zero, so Argo CD never sees (and prunes to) an empty render.
func newArgoCDCommand() *cobra.Command {
	argocd := &cobra.Command{Use: "argocd", Short: "Argo CD config management plugin commands"}
	argocd.AddCommand(&cobra.Command{
		Use:   "generate",
		Short: "Render the Application's source for Argo CD (parameters from PARAM_* and ARGOCD_ENV_OLM_RENDER_*)",
		Long: "generate renders the inputs under PATH (default: the working directory, which Argo CD sets to the\n" +
			"Application's source path). Parameters: PATH, CATALOGS (array of NAMESPACE/NAME=PATH), LOCKED\n" +
			"(default true: the committed lock file is required and must be current), INCLUDE_OLM_CRDS,\n" +
			"ALLOW_FAILED, KEEP_INTENT, each as PARAM_<NAME> or ARGOCD_ENV_OLM_RENDER_<NAME>.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			args := []string{"render"}
			for _, c := range argoArray("CATALOGS") {
				args = append(args, "--catalog", c)
			}
			for flag, name := range map[string]string{"--include-olm-crds": "INCLUDE_OLM_CRDS", "--allow-failed": "ALLOW_FAILED", "--keep-intent": "KEEP_INTENT"} {
				if argoParam(name, "false") == "true" {
					args = append(args, flag)
				}
			}
			if argoParam("LOCKED", "true") == "true" {
				args = append(args, "--locked")
			} else {
				args = append(args, "--no-lock")
			}
			args = append(args, argoParam("PATH", "."))
			render := newRootCommand(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			render.SetArgs(args)
			return render.Execute()
		},
	})
	return argocd
}

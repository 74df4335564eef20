package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/schemas/project"
)

// initOptions are the flags of olm-render init.
type initOptions struct {
	openshift        bool
	openshiftVersion string
	olm              string
	globalCatalogs   string
	kubeVersion      string
	force            bool
}

// newInitCommand writes a project file.
func newInitCommand() *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write the project file (" + project.FileName + ") every command of a repository reads",
		Long: "init writes DIR/" + project.FileName + " (DIR defaults to the working directory, and is created): a RenderConfig holding\n" +
			"the settings every olm-render command of the repository needs, so that no command line repeats\n" +
			"them. Every command that reads inputs finds it in the first input's directory or the nearest one\n" +
			"above it, up to --root, and a flag given on the command line overrides it. --openshift presets\n" +
			"it for OpenShift: OLM keeps running there (olm: running), and the global catalogs are in\n" +
			"openshift-marketplace; --openshift-version also sets the Kubernetes version that OpenShift runs.\n" +
			"--olm, --global-catalog-namespace and --kube-version, given, set the same options.",
		Example: "  olm-render init --openshift --openshift-version 4.18\n" +
			"  olm-render init --olm=absent --kube-version v1.31.0 clusters/",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			cfg, err := o.config(cmd)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("init: %w", err)
			}
			path := filepath.Join(dir, project.FileName)
			if err := writeProject(path, cfg, o.force); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", path)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.openshift, "openshift", false, "preset for OpenShift: olm: running, globalCatalogNamespace: openshift-marketplace")
	fs.StringVar(&o.openshiftVersion, "openshift-version", "", "with --openshift: the OpenShift version (4.18), which sets kubeVersion to the Kubernetes version it runs")
	addOLMFlag(fs, &o.olm)
	addGlobalCatalogsFlag(fs, &o.globalCatalogs)
	addKubeVersionFlag(fs, &o.kubeVersion)
	fs.BoolVar(&o.force, "force", false, "overwrite an existing project file")
	completeValues(cmd, "olm", targetNames()...)
	return cmd
}

// config builds the project file the flags describe.
func (o *initOptions) config(cmd *cobra.Command) (*project.Config, error) {
	cfg := &project.Config{APIVersion: project.APIVersion, Kind: project.Kind, Metadata: map[string]any{"name": "olm-render"}}
	if o.openshiftVersion != "" && !o.openshift {
		return nil, errors.New("--openshift-version goes with --openshift")
	}
	if o.openshift {
		opts, err := project.OpenShift(o.openshiftVersion)
		if err != nil {
			return nil, fmt.Errorf("--openshift-version: %w", err)
		}
		cfg.Options = opts
	}
	if cmd.Flags().Changed("olm") {
		if _, err := render.ParseTarget(o.olm); err != nil {
			return nil, fmt.Errorf("--olm: %w", err)
		}
		cfg.Options.OLM = o.olm
	}
	if cmd.Flags().Changed("global-catalog-namespace") {
		cfg.Options.GlobalCatalogNamespace = o.globalCatalogs
	}
	if o.kubeVersion != "" {
		if err := checkKubeVersion(o.kubeVersion); err != nil {
			return nil, err
		}
		cfg.Options.KubeVersion = o.kubeVersion
	}
	if cfg.Options.OLM == "" {
		cfg.Options.OLM = string(render.TargetAbsent)
	}
	return cfg, cfg.Validate()
}

// writeProject writes the project file, refusing to overwrite one unless forced.
func writeProject(path string, cfg *project.Config, force bool) error {
	data, err := project.Encode(cfg)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s exists: edit it, or pass --force to write it anew", path)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/fn"
	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/imagecache"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// newFnCommand is the KRM function: a ResourceList on stdin, one on stdout; or, standalone,
// `olm-render fn CONFIG INPUT...`, reading the inputs as render does and printing the objects.
func newFnCommand() *cobra.Command {
	// The function reads what kustomize (or a RenderConfig) names: every path stays inside --root.
	flags := requestFlags{confined: true}
	cmd := &cobra.Command{
		Use:   "fn [RENDERCONFIG INPUT...]",
		Short: "Run as a KRM function (kustomize transformer): ResourceList in, ResourceList out",
		Long: "fn reads a ResourceList on stdin (functionConfig: a RenderConfig, apiVersion olm-render.dev/v1alpha1),\n" +
			"replaces the operators.coreos.com objects by the objects OLM would create, keeps Namespaces and every\n" +
			"other resource, and writes the ResourceList on stdout. Problems are results; any error result exits\n" +
			"non-zero. Standalone, `olm-render fn config.yaml INPUT...` reads the inputs as render does (files,\n" +
			"directories, kustomizations, - for standard input) with the RenderConfig's catalogs and options,\n" +
			"and prints the objects.",
		Example: "  kustomize build --enable-alpha-plugins --enable-exec examples/kustomize\n" +
			"  olm-render fn examples/kustomize/olm-render.yaml examples/overlays/overlays/staging",
		RunE: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return runKRM(cmd, flags.root, flags.limits.MaxFileSize)
			case 1:
				return errors.New("standalone fn takes the RenderConfig and at least one INPUT")
			}
			return runStandalone(cmd, &flags, args[0], args[1:])
		},
	}
	addRootFlags(cmd.Flags(), &flags.root, &flags.limits)
	cmd.Flags().Lookup("root").Usage = "read nothing outside this directory: inputs and catalog snapshots must be inside it (default: the Git work tree holding the working directory, else the working directory)"
	flags.images.add(cmd.Flags())
	flags.complete(cmd)
	return cmd
}

// runKRM processes a ResourceList. Its errors are results, already in the output ResourceList and
// printed once by main.
func runKRM(cmd *cobra.Command, root string, limit int64) error {
	if limit <= 0 {
		limit = rootfs.DefaultLimits().MaxFileSize
	}
	in := &cappedReader{r: cmd.InOrStdin(), left: limit}
	rw := &kio.ByteReadWriter{Reader: in, Writer: cmd.OutOrStdout(), KeepReaderAnnotations: true}
	err := framework.Execute(&fn.Processor{LoadCatalog: cachedTrees(), Bound: root}, rw)
	if in.over {
		return fmt.Errorf("the ResourceList on standard input is over --max-file-size (%d bytes)", limit)
	}
	return err
}

// cappedReader reads at most left bytes, then fails: a ResourceList is bounded like every file.
type cappedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.over = true
		return 0, errors.New("over the size limit")
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left == 0 && err == nil {
		// Only an input longer than the limit is refused: probe for one more byte.
		var one [1]byte
		if m, _ := c.r.Read(one[:]); m > 0 {
			c.over = true
			return n, errors.New("over the size limit")
		}
	}
	return n, err
}

// cachedTrees loads catalog snapshots with the default cache for bundle trees (kustomize runs
// the function anew for every build); without a cache directory, nothing is cached.
func cachedTrees() inputs.LoadFunc {
	dir, _ := imagecache.DefaultDir()
	cache, _ := imagecache.Open(dir)
	return func(root rootfs.FS, src inputs.Source) (*catalog.Catalog, error) {
		if src.Image != "" {
			return nil, fmt.Errorf("catalog image %s: the KRM function does not pull images; vendor the catalog with `olm-render catalog pull` and bind the directory", src.Image)
		}
		return catalog.LoadFSCached(root, src.Path, cache)
	}
}

// runStandalone renders the inputs with a RenderConfig read from a file: its catalogs are
// relative to that file.
func runStandalone(cmd *cobra.Command, flags *requestFlags, configPath string, paths []string) error {
	req, err := flags.request(cmd, paths)
	if err != nil {
		return err
	}
	defer req.Close()
	cfg, err := readRenderConfig(req.Root, configPath)
	if err != nil {
		return err
	}
	base, err := fn.Request(cfg)
	if err != nil {
		return err
	}
	base.Paths, base.Root, base.Stdin, base.Registry = req.Paths, req.Root, req.Stdin, req.Registry
	for _, c := range cfg.Catalogs {
		path := c.Path
		if !filepath.IsAbs(path) && !strings.HasPrefix(path, inputs.ImagePrefix) {
			path = filepath.Join(filepath.Dir(configPath), path)
		}
		base.Catalogs = append(base.Catalogs, inputs.Binding{Namespace: c.Namespace, Name: c.Name, Path: path, Priority: c.Priority})
	}
	out, err := pipeline.Run(cmd.Context(), base)
	if err != nil {
		return err
	}
	reportWarnings(cmd.ErrOrStderr(), out.Warnings)
	return emit.Stream(cmd.OutOrStdout(), out.Objects)
}

// readRenderConfig reads and validates a RenderConfig file inside the root.
func readRenderConfig(root *rootfs.Dir, path string) (*fn.RenderConfig, error) {
	name, err := root.Rel(path)
	if err != nil {
		return nil, fmt.Errorf("RenderConfig %s: %s", path, rootfs.Describe(err))
	}
	data, err := root.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("RenderConfig %s: %s", path, rootfs.Describe(err))
	}
	if err := fn.CheckFields(root.Path(name), data); err != nil {
		return nil, err
	}
	cfg := &fn.RenderConfig{}
	if err := k8syaml.UnmarshalStrict(data, cfg); err != nil {
		return nil, fmt.Errorf("RenderConfig %s: %w", path, err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("RenderConfig %s: %w", path, err)
	}
	return cfg, nil
}

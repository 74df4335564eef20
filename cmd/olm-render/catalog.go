package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olm-render/olm-render/render/outdir"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/registry"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

func newCatalogCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Inspect, validate and vendor catalog snapshots",
	}
	cmd.AddCommand(newCatalogValidateCommand(), newCatalogPullCommand())
	return cmd
}

func newCatalogValidateCommand() *cobra.Command {
	var (
		root   string
		limits rootfs.Limits
		images imageFlags
	)
	cmd := &cobra.Command{
		Use:   "validate PATH|oci://IMAGE...",
		Short: "Load catalog snapshots (FBC, registry+v1 bundles, package manifests, index images) and report every problem",
		Long: "validate loads each catalog snapshot given, wherever it is (a path, or an index image as oci://IMAGE),\n" +
			"prints one line per catalog, and reports every problem: it exits 1 when a render could fail on\n" +
			"the catalog (a bundle left out or unrenderable, inline manifests that do not decode, a dependency\n" +
			"no resolution can read). What a catalog names (symbolic links in a bundle tree) stays inside\n" +
			"--root, by default the Git work tree holding it, else the catalog's own directory.",
		Example: "  olm-render catalog validate examples/quickstart/catalog\n" +
			"  olm-render catalog validate oci://registry.redhat.io/redhat/community-operator-index:v4.18",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLimits(limits); err != nil {
				return err
			}
			opts, err := images.options()
			if err != nil {
				return err
			}
			v := &validator{root: root, limits: limits, opts: opts, roots: map[string]*rootfs.Dir{}}
			defer v.close()
			var all diag.Problems
			for _, arg := range args {
				c, err := v.load(cmd, arg)
				if err != nil {
					all = append(all, problemsOf(arg, err)...)
					continue
				}
				bad, err := uninstallable(c)
				if err != nil {
					return err
				}
				all = append(all, withoutRestated(c.Warnings, bad)...)
				all = append(all, metadataOnly(c)...)
				all = append(all, bad...)
				packages, channels, bundles := c.Counts()
				verdict := "valid"
				switch n := len(bad.Errors()); n {
				case 0:
				case 1:
					verdict = "not valid (1 problem that would fail a render)"
				default:
					verdict = fmt.Sprintf("not valid (%d problems that would fail a render)", n)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s, %d packages, %d channels, %d bundles%s: %s\n",
					arg, c.Format, packages, channels, bundles, leftOutCount(c, bundles), verdict)
			}
			reportWarnings(cmd.ErrOrStderr(), all.Warnings())
			return all.Err()
		},
	}
	addRootFlags(cmd.Flags(), &root, &limits)
	cmd.Flags().Lookup("root").Usage = "the directory what a catalog names (symbolic links) must stay inside; every catalog given must be inside it (default: the Git work tree holding the catalog, else the working directory when it holds it, else the catalog's own directory)"
	images.add(cmd.Flags())
	completeDirs(cmd, "root", "cache-dir")
	completeFiles(cmd, "authfile", "json")
	completeFiles(cmd, "registries-conf", "conf")
	return cmd
}

// validator loads the arguments of catalog validate: paths, each read in its own root (or
// --root), and index images.
type validator struct {
	root   string
	limits rootfs.Limits
	opts   *registry.Options
	client *registry.Client
	roots  map[string]*rootfs.Dir
}

// load loads one argument: a catalog snapshot on disk, or an index image (metadata only: its
// bundle images are not pulled).
func (v *validator) load(cmd *cobra.Command, arg string) (*catalog.Catalog, error) {
	if ref, ok := strings.CutPrefix(arg, inputs.ImagePrefix); ok {
		if v.client == nil {
			c, err := registry.New(*v.opts)
			if err != nil {
				return nil, err
			}
			v.client = c
		}
		return v.client.LoadIndex(cmd.Context(), ref)
	}
	dir, p := v.root, arg
	if dir == "" {
		var err error
		if dir, err = ownRoot(arg); err != nil {
			return nil, err
		}
		if p, err = realPath(arg); err != nil {
			return nil, err
		}
	}
	root, err := v.open(dir)
	if err != nil {
		return nil, err
	}
	name, err := root.Rel(p)
	if err != nil {
		return nil, fmt.Errorf("%s (--root %s must hold every catalog given)", rootfs.Describe(err), v.root)
	}
	return catalog.LoadFSCached(root, name, v.opts.Cache)
}

// open opens a root once.
func (v *validator) open(dir string) (*rootfs.Dir, error) {
	if d, ok := v.roots[dir]; ok {
		return d, nil
	}
	d, err := rootfs.OpenDir(dir, v.limits)
	if err != nil {
		return nil, err
	}
	v.roots[dir] = d
	return d, nil
}

func (v *validator) close() {
	for _, d := range v.roots {
		d.Close()
	}
}

// uninstallable lists what a render from c would fail on: bundles left out or unrenderable,
// inline manifests that do not decode, dependencies no resolution can read.
func uninstallable(c *catalog.Catalog) (diag.Problems, error) {
	out := c.Uninstallable()
	deps, err := resolver.CheckDependencies(c)
	if err != nil {
		return nil, err
	}
	return append(out, deps...), nil
}

// withoutRestated drops the load warnings that restate one of errs (a bundle left out or
// unrenderable is a warning for a render, which may not need it, and an error for validate).
func withoutRestated(warnings, errs diag.Problems) diag.Problems {
	var out diag.Problems
	for _, w := range warnings {
		restated := slices.ContainsFunc(errs, func(e diag.Problem) bool {
			return e.Origin == w.Origin && e.Object == w.Object && e.Field == w.Field && strings.Contains(w.Message, e.Message)
		})
		if !restated {
			out = append(out, w)
		}
	}
	return out
}

// leftOutCount counts the directories of a bundle tree the published catalog holds no bundle
// from beside the bundles it holds, so that every bundle directory is counted ("" when there are
// none).
func leftOutCount(c *catalog.Catalog, bundles int) string {
	var out, unknown int
	for _, l := range c.LeftOut {
		if l.Unknown {
			unknown++
		} else {
			out++
		}
	}
	switch {
	case out == 0 && unknown == 0:
		return ""
	case unknown == 0:
		return fmt.Sprintf(" (of %d bundle directories: %d left out, as the published catalog leaves them out)", bundles+out, out)
	}
	return fmt.Sprintf(" (of %d bundle directories: %d left out, as the published catalog leaves them out; and %d directories not understood)", bundles+out, out, unknown)
}

// problemsOf names the argument in a bare error.
func problemsOf(arg string, err error) diag.Problems {
	ps := diag.From(err)
	if len(ps) == 1 && ps[0].Origin.File == "" && ps[0].Object == "" {
		ps[0].Object = arg
	}
	return ps
}

// metadataOnly warns about bundles the catalog has no manifests for: rendering one pulls its
// bundle image (or fails when it names none).
func metadataOnly(c *catalog.Catalog) diag.Problems {
	var pulled, missing int
	var firstMissing *catalog.Bundle
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			switch {
			case b.HasManifests():
			case b.Image != "":
				pulled++
			default:
				missing++
				if firstMissing == nil {
					firstMissing = b
				}
			}
		}
	}
	var out diag.Problems
	if pulled > 0 {
		out.Warnf(diag.Origin{}, c.Path, "", "%d bundles carry only metadata (olm.csv.metadata): rendering one pulls its bundle image (vendor them with `olm-render catalog pull` for renders without registry access)", pulled)
	}
	if missing > 0 {
		out.Errorf(firstMissing.Origin, c.Path, "", "%d bundles carry neither manifests nor a bundle image (first: %s): they cannot be rendered", missing, firstMissing.Name)
	}
	return out
}

func newCatalogPullCommand() *cobra.Command {
	var (
		images   imageFlags
		packages []string
		output   string
	)
	cmd := &cobra.Command{
		Use:   "pull IMAGE --output-dir DIR",
		Short: "Vendor an index image as a pinned, self-contained file-based catalog (for Git, CI and air gaps)",
		Long: "pull reads an index image, keeps the packages named with --package and every package they may depend\n" +
			"on (all packages when none is named), pulls each bundle image and writes DIR/catalog.json: a file-based\n" +
			"catalog with every bundle's manifests inlined and the index image's digest recorded. Commit DIR and\n" +
			"bind it with the olm-render.dev/catalog annotation: renders then need no registry.",
		Example: "  olm-render catalog pull registry.redhat.io/redhat/community-operator-index:v4.18 --package etcd --output-dir catalogs/community",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output == "" {
				return errors.New("catalog pull needs --output-dir DIR, the directory to write the catalog into")
			}
			opts, err := images.options()
			if err != nil {
				return err
			}
			client, err := registry.New(*opts)
			if err != nil {
				return err
			}
			snap, err := client.Snapshot(cmd.Context(), strings.TrimPrefix(args[0], inputs.ImagePrefix), packages)
			if err != nil {
				return err
			}
			for _, u := range snap.Unfollowed {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s: a CEL constraint can be met by any package; its dependencies are not followed (add them with --package)\n", u)
			}
			// .indexignore keeps olm-render's own bookkeeping out of the catalog for opm too.
			files := map[string][]byte{"catalog.json": snap.FBC, ".indexignore": []byte(outdir.IndexFile + "\n")}
			if err := outdir.Write(output, files); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d packages, %d bundles from %s\n", output, len(snap.Packages), snap.Bundles, snap.Source.Image)
			return nil
		},
	}
	images.add(cmd.Flags())
	cmd.Flags().StringArrayVar(&packages, "package", nil, "keep this package and its dependencies (repeatable; default: every package)")
	addOutputDir(cmd, &output, "the directory to write the catalog into (required)")
	addAlias(cmd, "output", "o", "output-dir")
	completeDirs(cmd, "cache-dir")
	completeFiles(cmd, "authfile", "json")
	completeFiles(cmd, "registries-conf", "conf")
	return cmd
}

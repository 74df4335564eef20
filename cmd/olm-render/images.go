package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/olm-render/olm-render/render/images"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/inputs"
)

func newImagesCommand() *cobra.Command {
	var (
		flags  requestFlags
		lf     lockFlags
		format string
	)
	cmd := &cobra.Command{
		Use:   "images PATH...",
		Short: "List every image a render needs: index, bundle, operator and related images",
		Long: "images resolves the inputs as render does (the lock's versions when there is a lock) and lists the\n" +
			"images the result needs: the index images its catalogs come from, the chosen bundles' images and\n" +
			"their operator and related images, dependencies included. -o imageset writes an oc-mirror\n" +
			"ImageSetConfiguration (mirror.openshift.io/v2alpha1) pinning each package to its chosen version.",
		Example: "  olm-render images manifests/\n  olm-render images -o imageset manifests/ > imageset-config.yaml",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := flags.request(cmd, args)
			if err != nil {
				return err
			}
			defer req.Close()
			res, err := resolveForImages(cmd, &flags, req, lf)
			if err != nil {
				return err
			}
			pipeline.Prefetch(res)
			list, err := images.List(res)
			if err != nil {
				return err
			}
			return writeImages(cmd, format, res, list)
		},
	}
	flags.addLoad(cmd.Flags())
	lf.add(cmd.Flags(), false)
	addOutputFormat(cmd, &format, "text", imagesFormats...)
	addAlias(cmd, "format", "", "output")
	addProjectFlags(cmd, false)
	flags.complete(cmd)
	return cmd
}

// imagesFormats are the formats images prints.
var imagesFormats = []string{"text", "json", "imageset"}

// resolveForImages resolves as render does, keeping the lock's versions, and never writes.
func resolveForImages(cmd *cobra.Command, flags *requestFlags, req pipeline.Request, lf lockFlags) (*resolver.Result, error) {
	_, res, err := lockedInputs(cmd, flags, req, lf)
	if err == nil {
		reportWarnings(cmd.ErrOrStderr(), res.Warnings)
	}
	return res, err
}

// lockedInputs loads the inputs and resolves them as render does, keeping the versions of
// their lock file (none when it does not exist), and never writes the lock.
func lockedInputs(cmd *cobra.Command, flags *requestFlags, req pipeline.Request, lf lockFlags) (*inputs.Set, *resolver.Result, error) {
	path := lf.lockPath(req.Paths)
	l, err := lf.read(cmd, flags, req.Root, path)
	if err != nil {
		return nil, nil, err
	}
	pinImages(&req, l, false)
	set, err := loadInputs(cmd, req)
	if err != nil {
		return nil, nil, err
	}
	res, _, _, err := lockedResolution(cmd.Context(), set, req, l, false, path)
	if err != nil {
		return nil, nil, err
	}
	return set, res, nil
}

func writeImages(cmd *cobra.Command, format string, res *resolver.Result, list []images.Image) error {
	w := cmd.OutOrStdout()
	switch format {
	case "text":
		_, err := fmt.Fprint(w, images.Text(list))
		warnTags(cmd, list)
		return err
	case "json":
		data, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	case "imageset":
		data, err := images.ImageSetConfiguration(res, list)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	return fmt.Errorf("unknown --output %q: want %s", format, joinOr(imagesFormats))
}

// warnTags says how many images are given by tag (a mirror then copies whatever the tag points at
// when it runs).
func warnTags(cmd *cobra.Command, list []images.Image) {
	n := 0
	for _, img := range list {
		if !img.Pinned() {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %d images are given by tag, not digest, by their bundles\n", n)
	}
}

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/diff"
	"github.com/olm-render/olm-render/render/live"
	"github.com/olm-render/olm-render/render/pipeline"
)

func newDiffCommand() *cobra.Command {
	var (
		flags       requestFlags
		base, repo  string
		renderDir   string
		format      string
		title       string
		budget      int
		exitCode    bool
		ignoreKinds []string
		ignoreField []string
		liveFlags   liveOptions
	)
	cmd := &cobra.Command{
		Use:   "diff (OLD NEW | --base REV PATH | --against DIR INPUT... | --live INPUT...)",
		Short: "Compare two renders object by object, for a pull request",
		Long: "diff compares two renders after normalisation: two directories or files (OLD NEW), a path at a\n" +
			"git revision against the same path in the work tree (--base REV PATH), or committed output\n" +
			"against a fresh render of the inputs (--against DIR INPUT...), or the live cluster against a\n" +
			"fresh render (--live INPUT..., by server-side dry-run apply). It prints a summary (added,\n" +
			"deleted, modified), explains upgrades in words, then one diff per object. With --exit-code it\n" +
			"exits 0 when nothing changed and 1 when something did; errors exit 2.",
		Example: "  olm-render diff rendered-old/ rendered/\n" +
			"  olm-render diff --base origin/main rendered/ --format markdown\n" +
			"  olm-render diff --against rendered/ manifests/\n" +
			"  olm-render diff --live --kubeconfig ~/.kube/config manifests/",
		RunE: func(cmd *cobra.Command, args []string) error {
			var before, after []*unstructured.Unstructured
			var err error
			if liveFlags.live {
				before, after, err = liveSides(cmd, &flags, args, liveFlags, base != "" || renderDir != "")
			} else {
				before, after, err = diffSides(cmd, &flags, args, base, repo, renderDir)
			}
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			report, err := diff.Compare(before, after, diff.Options{IgnoreKinds: ignoreKinds, IgnoreFields: ignoreField})
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			w := cmd.OutOrStdout()
			switch format {
			case "text":
				err = report.WriteText(w)
			case "markdown", "md":
				err = report.WriteMarkdown(w, title, budget)
			case "json":
				err = report.WriteJSON(w)
			default:
				err = fmt.Errorf("unknown --format %q: use text, markdown or json", format)
			}
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if exitCode && report.Changed() {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	flags.addLoad(fs)
	flags.addRender(fs)
	fs.StringVar(&base, "base", "", "compare PATH at this git revision (before) with PATH in the work tree (after)")
	fs.StringVar(&repo, "repo", ".", "the git repository --base reads from")
	fs.StringVar(&renderDir, "against", "", "compare this committed output directory (before) with a fresh render of the inputs (after)")
	fs.BoolVar(&liveFlags.live, "live", false, "compare a fresh render of the inputs with the live cluster (server-side dry-run apply)")
	fs.StringVar(&liveFlags.kubeconfig, "kubeconfig", "", "kubeconfig for --live (default: $KUBECONFIG, ~/.kube/config)")
	fs.StringVar(&liveFlags.context, "context", "", "kubeconfig context for --live")
	fs.StringVar(&format, "format", "text", "output format: text, markdown or json")
	fs.StringVar(&title, "title", "olm-render diff", "title of the Markdown report")
	fs.IntVar(&budget, "budget", 65536, "maximum size of the Markdown report, in characters")
	fs.BoolVar(&exitCode, "exit-code", false, "exit 1 when the renders differ, 0 when they do not (errors exit 2)")
	fs.StringArrayVar(&ignoreKinds, "ignore-kind", nil, "ignore objects of this kind (repeatable)")
	fs.StringArrayVar(&ignoreField, "ignore-field", nil, "ignore this field, as a JSON pointer or dotted path (repeatable)")
	return cmd
}

// diffSides reads the two renders the arguments name.
func diffSides(cmd *cobra.Command, flags *requestFlags, args []string, base, repo, against string) (before, after []*unstructured.Unstructured, err error) {
	switch {
	case base != "" && against != "":
		return nil, nil, errors.New("--base and --against cannot be used together")
	case base != "":
		if len(args) != 1 {
			return nil, nil, errors.New("--base takes exactly one PATH")
		}
		rel, err := repoRelative(repo, args[0])
		if err != nil {
			return nil, nil, err
		}
		if before, err = diff.ReadGit(repo, base, rel); err != nil {
			return nil, nil, err
		}
		after, err = diff.ReadDir(args[0])
		return before, after, err
	case against != "":
		if len(args) == 0 {
			return nil, nil, errors.New("--against needs the input PATHs to render")
		}
		if before, err = diff.ReadDir(against); err != nil {
			return nil, nil, err
		}
		req, err := flags.request(cmd, args)
		if err != nil {
			return nil, nil, err
		}
		defer req.Close()
		out, err := pipeline.Run(cmd.Context(), req)
		if err != nil {
			return nil, nil, err
		}
		reportWarnings(cmd.ErrOrStderr(), out.Warnings)
		return before, out.Objects, nil
	default:
		if len(args) != 2 {
			return nil, nil, errors.New("diff takes OLD and NEW, or --base REV PATH, or --against DIR INPUT...")
		}
		if before, err = diff.ReadDir(args[0]); err != nil {
			return nil, nil, err
		}
		after, err = diff.ReadDir(args[1])
		return before, after, err
	}
}

// repoRelative turns path into a path relative to the repository's top directory.
func repoRelative(repo, path string) (string, error) {
	absRepo, err := filepath.Abs(repo)
	if err != nil {
		return "", err
	}
	absPath, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(absPath); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	rel, err := filepath.Rel(absRepo, absPath)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// liveOptions are the flags of diff --live.
type liveOptions struct {
	live                bool
	kubeconfig, context string
}

// liveSides renders the inputs and compares them with the cluster by server-side dry-run apply:
// before is the live state of what would change, after what an apply would leave.
func liveSides(cmd *cobra.Command, flags *requestFlags, args []string, opts liveOptions, conflicting bool) (before, after []*unstructured.Unstructured, err error) {
	if conflicting {
		return nil, nil, errors.New("--live cannot be used with --base or --against")
	}
	if len(args) == 0 {
		return nil, nil, errors.New("--live needs the input PATHs to render")
	}
	req, err := flags.request(cmd, args)
	if err != nil {
		return nil, nil, err
	}
	defer req.Close()
	out, err := pipeline.Run(cmd.Context(), req)
	if err != nil {
		return nil, nil, err
	}
	reportWarnings(cmd.ErrOrStderr(), out.Warnings)
	cluster, err := live.ConnectKubeconfig(opts.kubeconfig, opts.context)
	if err != nil {
		return nil, nil, err
	}
	drift, err := cluster.Diff(cmd.Context(), out.Objects)
	if err != nil {
		return nil, nil, err
	}
	return drift.Before(), drift.After(), nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/cluster/live"
	"github.com/olm-render/olm-render/diff"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/schemas/project"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// diffOptions are the flags of olm-render diff.
type diffOptions struct {
	flags       requestFlags
	base, repo  string
	renderDir   string
	format      string
	title       string
	budget      int
	exitCode    bool
	failOn      []string
	ignoreKinds []string
	ignoreField []string
	live        liveOptions
}

func newDiffCommand() *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff (OLD NEW | --base REV [PATH] | --against DIR INPUT... | --live INPUT...)",
		Short: "Compare two renders object by object, for a pull request",
		Long: "diff compares two renders after normalisation: two directories or files (OLD NEW), a path at a\n" +
			"git revision against the same path in the work tree (--base REV PATH), or committed output\n" +
			"against a fresh render of the inputs (--against DIR INPUT...), or the live cluster against a\n" +
			"fresh render (--live INPUT..., by server-side dry-run apply). Objects OLM names after a CSV (the\n" +
			"CSV, its copies, its Roles, ClusterRoles and bindings, its OperatorCondition) are paired across\n" +
			"an upgrade and shown as modifications. It prints a summary (added, deleted, modified), then\n" +
			"for each operator upgrade the images, permissions, CRD compatibility, webhooks, dependencies\n" +
			"and install modes that change, then one diff per object.\n\n" +
			"Renders for a cluster where OLM keeps running (--olm=running: they hold a prediction) are\n" +
			"compared in two parts: first what Git applies (Subscriptions, CatalogSources, the approval\n" +
			"contracts, anything passed through), then what OLM will do, in words (\"OLM will install\n" +
			"A → B (replaces); approve admits B; held: C\", or why it will not: OLM never downgrades), then\n" +
			"the objects it is predicted to create, as above. The gates apply to both parts.\n\n" +
			"Exit status, as kubectl diff's: 0 when nothing changed; 1 when something changed (0 with\n" +
			"--exit-code=false, for a comment generated in CI); 2 on errors, including an unknown --fail-on\n" +
			"gate; 3 when a --fail-on gate fires, with one reason a line on stderr (3 wins over 1). Gates:\n" +
			"  permission-growth    a subject gains or widens a permission\n" +
			"  crd-breaking         a CRD change can break stored objects, or a CRD is removed\n" +
			"  webhook-change       a webhook configuration or CSV webhook definition changes\n" +
			"  dependency-change    a CSV's requirements change, or an operator is installed or removed\n" +
			"  install-mode-change  a CSV's support of an install mode changes\n" +
			"  downgrade            an operator's CSV moves to an older version (with --olm=running also a\n" +
			"                       Subscription whose lock does: OLM never installs it)\n" +
			"  any-change           anything changes",
		Example: "  olm-render diff rendered-old/ rendered/\n" +
			"  olm-render diff --base origin/main rendered/ -o markdown\n" +
			"  olm-render diff --against rendered/ manifests/\n" +
			"  olm-render diff --base origin/main rendered/ --fail-on permission-growth,crd-breaking,downgrade\n" +
			"  olm-render diff --live --kubeconfig ~/.kube/config manifests/\n" +
			"  olm-render diff --base origin/main      # every cluster of the project file's fleet",
		RunE: o.run,
	}
	o.addFlags(cmd)
	return cmd
}

// diffFormats are the formats diff writes its report in.
var diffFormats = []string{"text", "markdown", "json"}

// addFlags registers the flags of olm-render diff.
func (o *diffOptions) addFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	o.flags.addLoad(fs)
	o.flags.addRender(fs)
	fs.StringVar(&o.base, "base", "", "compare PATH at this git revision (before) with PATH in the work tree (after)")
	fs.StringVar(&o.repo, "repo", ".", "the git repository --base reads from")
	fs.StringVar(&o.renderDir, "against", "", "compare this committed output directory (before) with a fresh render of the inputs (after)")
	fs.BoolVar(&o.live.live, "live", false, "compare a fresh render of the inputs with the live cluster (server-side dry-run apply)")
	fs.StringVar(&o.live.kubeconfig, "kubeconfig", "", "kubeconfig for --live (default: $KUBECONFIG, ~/.kube/config)")
	fs.StringVar(&o.live.context, "context", "", "kubeconfig context for --live")
	fs.StringVar(&o.title, "title", "olm-render diff", "title of the Markdown report")
	fs.IntVar(&o.budget, "budget", 65536, "maximum size of the Markdown report, in characters")
	fs.BoolVar(&o.exitCode, "exit-code", true, "exit 1 when the renders differ, as kubectl diff does (--exit-code=false: 0); errors exit 2")
	fs.StringSliceVar(&o.failOn, "fail-on", nil, "exit 3 when one of these gates fires, printing why on stderr: "+
		"permission-growth, crd-breaking, webhook-change, dependency-change, install-mode-change, downgrade, any-change (comma-separated, repeatable)")
	fs.StringArrayVar(&o.ignoreKinds, "ignore-kind", nil, "ignore objects of this kind (repeatable)")
	fs.StringArrayVar(&o.ignoreField, "ignore-field", nil, "ignore this field, as a JSON pointer or dotted path (repeatable)")
	addOutputFormat(cmd, &o.format, "text", diffFormats...)
	addAlias(cmd, "format", "", "output")
	o.flags.complete(cmd)
	var gates []string
	for _, g := range diff.AllGates() {
		gates = append(gates, string(g))
	}
	completeValues(cmd, "fail-on", gates...)
	completeDirs(cmd, "against", "repo")
	completeFiles(cmd, "kubeconfig")
	addProjectFlags(cmd, true)
}

// run compares the two renders, writes the report and returns the exit status.
func (o *diffOptions) run(cmd *cobra.Command, args []string) error {
	if fleetRun(cmd, args) {
		return o.runFleet(cmd)
	}
	gates, err := diff.ParseGates(o.failOn)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--fail-on: %w", err)}
	}
	var before, after []*unstructured.Unstructured
	if o.live.live {
		before, after, err = liveSides(cmd, &o.flags, args, o.live, o.base != "" || o.renderDir != "")
	} else {
		before, after, err = diffSides(cmd, &o.flags, args, o.base, o.repo, o.renderDir)
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	report, err := diff.Compare(before, after, diff.Options{IgnoreKinds: o.ignoreKinds, IgnoreFields: o.ignoreField})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if err := writeReport(cmd.OutOrStdout(), report, o.format, o.title, o.budget); err != nil {
		return &exitError{code: 2, err: err}
	}
	return diffOutcome(cmd.ErrOrStderr(), report, gates, o.exitCode)
}

// runFleet diffs each cluster of the project's fleet: its output directory at --base against
// the work tree, one report after the other (-o json: one object holding each by name).
func (o *diffOptions) runFleet(cmd *cobra.Command) error {
	p := projectOf(cmd)
	if o.base == "" || o.renderDir != "" || o.live.live {
		return &exitError{code: 2, err: fmt.Errorf("diff of a fleet (no PATH, %s lists clusters) compares each cluster's outputDir with --base REV: give --base, or a PATH", p.file.Shown)}
	}
	perCluster := func(c project.Cluster, _, out string) ([]string, error) {
		if out == "" {
			return nil, &exitError{code: 2, err: fmt.Errorf("%s: clusters %s: outputDir is required to diff a fleet", p.file.Shown, c.Name)}
		}
		return []string{"--title=" + o.title + ": " + c.Name, out}, nil
	}
	if o.format == "json" {
		return fleetJSON(cmd, perCluster)
	}
	return runFleet(cmd, perCluster)
}

// writeReport writes the report in the format asked for.
func writeReport(w io.Writer, report *diff.Report, format, title string, budget int) error {
	switch format {
	case "text":
		return report.WriteText(w)
	case "markdown", "md":
		return report.WriteMarkdown(w, title, budget)
	case "json":
		return report.WriteJSON(w)
	}
	return fmt.Errorf("unknown --output %q: use %s", format, joinOr(diffFormats))
}

// diffOutcome returns the exit status of a diff that ran: 3 when a gate fires (after printing
// one reason a line on stderr), else 1 when something changed (unless --exit-code=false), else nil.
func diffOutcome(stderr io.Writer, report *diff.Report, gates []diff.Gate, exitCode bool) error {
	if reasons := report.Check(gates); len(reasons) > 0 {
		for _, f := range reasons {
			fmt.Fprintln(stderr, f.String())
		}
		return &exitError{code: 3}
	}
	if exitCode && report.Changed() {
		return &exitError{code: 1}
	}
	return nil
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
		after, err = readRender(flags, args[0])
		return before, after, err
	case against != "":
		if len(args) == 0 {
			return nil, nil, errors.New("--against needs the input PATHs to render")
		}
		if before, err = readRender(flags, against); err != nil {
			return nil, nil, err
		}
		req, err := flags.request(cmd, args)
		if err != nil {
			return nil, nil, err
		}
		defer req.Close()
		out, err := renderAsLocked(cmd, flags, req)
		if err != nil {
			return nil, nil, err
		}
		// With --olm=running the directory holds the prediction too (prediction/).
		return before, append(out.Objects, out.Prediction...), nil
	default:
		if len(args) != 2 {
			return nil, nil, errors.New("diff takes OLD and NEW, or --base REV PATH, or --against DIR INPUT...")
		}
		if before, err = readRender(flags, args[0]); err != nil {
			return nil, nil, err
		}
		after, err = readRender(flags, args[1])
		return before, after, err
	}
}

// repoRelative turns path into a path relative to the repository's top directory.
// readRender reads a rendered directory (or file): confined to --root when it is given, else to
// the directory itself (a render written anywhere can be compared, but a symlink in it that
// leads out of it, a device or a FIFO is refused: a pull request's diff must not show a file
// of the machine it runs on).
func readRender(flags *requestFlags, p string) ([]*unstructured.Unstructured, error) {
	if flags.root == "" {
		return diff.ReadDir(p)
	}
	root, err := openRoot(flags.root, flags.limits)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	name, err := root.Rel(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %s (pass --root with a directory that holds it)", p, rootfs.Describe(err))
	}
	return diff.ReadFS(root, name)
}

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
	out, err := renderAsLocked(cmd, flags, req)
	if err != nil {
		return nil, nil, err
	}
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

// renderAsLocked renders the inputs as render does: the versions of their lock file (beside the
// first input) kept, a Subscription the lock lacks resolved afresh; nothing is written. It
// prints the warnings.
func renderAsLocked(cmd *cobra.Command, flags *requestFlags, req pipeline.Request) (*pipeline.Output, error) {
	set, res, err := lockedInputs(cmd, flags, req, lockFlags{})
	if err != nil {
		return nil, err
	}
	out, err := pipeline.Render(set, res, req.Render)
	if err != nil {
		return nil, err
	}
	reportWarnings(cmd.ErrOrStderr(), out.Warnings)
	return out, nil
}

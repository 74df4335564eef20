// Command olm-render renders what the Operator Lifecycle Manager (OLM) would create for the
// Subscriptions, OperatorGroups and Namespaces of a GitOps repository, against catalog
// snapshots, so the result can be committed, reviewed and applied by Flux or Argo CD.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olm-render/olm-render/schemas/diag"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitError carries an exit code other than 1, or a failure already reported.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// run executes the command line and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCommand(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
		err = ee.err
	}
	reportError(stderr, err)
	return code
}

// reportError prints err. An error carrying problems prints one problem a line, sorted.
func reportError(w io.Writer, err error) {
	var withProblems interface{ Problems() diag.Problems }
	if errors.As(err, &withProblems) {
		// Resolution and render failures: one problem a line, each naming its file and object.
		for _, p := range withProblems.Problems() {
			fmt.Fprintf(w, "%s: %s\n", severityOf(p), p.Error())
		}
		var withHint interface{ Hint() string }
		if errors.As(err, &withHint) {
			fmt.Fprintf(w, "hint: %s\n", withHint.Hint())
		}
		return
	}
	var ps diag.Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		fmt.Fprintf(w, "error: %s\n", printableLines(err.Error()))
		return
	}
	// The problems are the reasons, each naming its file and object: what the command was doing
	// when it met them ("loading inputs") would only stand before them.
	for _, p := range ps.Sorted() {
		fmt.Fprintf(w, "%s: %s\n", severityOf(p), p.Error())
	}
}

// printableLines makes each line of a message printable (diag.Printable), keeping its lines.
func printableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = diag.Printable(l)
	}
	return strings.Join(lines, "\n")
}

func severityOf(p diag.Problem) diag.Severity {
	if p.Severity == "" {
		return diag.Error
	}
	return p.Severity
}

// reportWarnings prints warnings to stderr.
func reportWarnings(w io.Writer, ps diag.Problems) {
	for _, p := range ps.Sorted() {
		fmt.Fprintf(w, "%s: %s\n", severityOf(p), p.Error())
	}
}

func newRootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "olm-render",
		Short: "Render what OLM would install, for GitOps",
		Long: "olm-render resolves Subscriptions against catalog snapshots exactly as OLM v0 does and renders\n" +
			"every object OLM would create (CSVs, copied CSVs, Deployments, RBAC, CRDs...), so Git holds them.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
		// Deprecated spellings (-o DIR, --format, -i) warn and stand for the current flag; then
		// the project file sets what the command line leaves unset.
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := applyAliases(cmd); err != nil {
				return err
			}
			return loadProject(cmd, args)
		},
	}
	root.SetVersionTemplate("olm-render {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(
		newRenderCommand(),
		newResolveCommand(),
		newCatalogCommand(),
		newDiffCommand(),
		newLockCommand(),
		newUpgradeCommand(),
		newFnCommand(),
		newArgoCDCommand(),
		newImagesCommand(),
		newImportCommand(),
		newVersionCommand(),
		newStatusCommand(),
		newApproveCommand(),
		newInitCommand(),
		newMigrateCommand(),
	)
	return root
}

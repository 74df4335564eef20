package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olm-render/olm-render/cluster/importer"
	"github.com/olm-render/olm-render/cluster/live"
	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/outdir"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// importOptions are the flags of olm-render import.
type importOptions struct {
	flags               requestFlags
	kubeconfig, context string
	namespaces          []string
	output              string
}

func newImportCommand() *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import --output-dir DIR",
		Short: "Read what OLM installed in a cluster and write the inputs and the lock that reproduce it",
		Long: "import reads a live cluster's Subscriptions, OperatorGroups, CatalogSources, OLMConfig, installed CSVs\n" +
			"and InstallPlans, and writes into DIR the inputs as declared (status, server fields and what OLM\n" +
			"added dropped; one file per kind and namespace) and " + lock.FileName + ", which pins every\n" +
			"Subscription to the CSV OLM installed and every index image to the digest its catalog pod runs.\n" +
			"It resolves the inputs against their catalogs with those CSVs pinned, as `olm-render lock` does,\n" +
			"so a render of DIR reproduces the cluster. What it cannot reproduce (failed or upgrading CSVs,\n" +
			"InstallPlans waiting for approval, CatalogSources without an image, CSVs without a Subscription)\n" +
			"is reported on stderr as warnings; only errors exit non-zero. DIR is written atomically.",
		Example: "  olm-render import --kubeconfig ~/.kube/config --output-dir cluster/\n" +
			"  olm-render import --namespace operators --namespace team-a --output-dir cluster/",
		Args: cobra.NoArgs,
		RunE: o.run,
	}
	fs := cmd.Flags()
	o.flags.addLoad(fs)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default: $KUBECONFIG, ~/.kube/config)")
	fs.StringVar(&o.context, "context", "", "kubeconfig context")
	fs.StringArrayVar(&o.namespaces, "namespace", nil, "import only the Subscriptions, OperatorGroups, CatalogSources and CSVs of this namespace (repeatable; default: all)")
	addOutputDir(cmd, &o.output, "the directory to write the inputs and the lock into (required)")
	addAlias(cmd, "output", "o", "output-dir")
	addProjectFlags(cmd, false)
	o.flags.complete(cmd)
	completeFiles(cmd, "kubeconfig")
	return cmd
}

// run reads the cluster, completes the lock and writes the directory.
func (o *importOptions) run(cmd *cobra.Command, _ []string) error {
	if o.output == "" {
		return errors.New("import needs --output-dir DIR, the directory to write the inputs and the lock into")
	}
	cfg, err := live.RESTConfig(o.kubeconfig, o.context)
	if err != nil {
		return err
	}
	client, err := importer.Connect(cfg)
	if err != nil {
		return err
	}
	res, err := importer.Read(cmd.Context(), client, importer.Options{Namespaces: o.namespaces})
	if err != nil {
		return err
	}
	reportWarnings(cmd.ErrOrStderr(), importer.Problems(res.Reports))
	if res.Subscriptions() == 0 && !o.flags.allowEmpty {
		return fmt.Errorf("no Subscription in %s: nothing to import (pass --allow-empty to write the inputs anyway)", o.scope())
	}
	l, err := o.complete(cmd, res)
	if err != nil {
		return err
	}
	files, err := importer.Files(res.Objects, l)
	if err != nil {
		return err
	}
	if err := outdir.Write(o.output, files); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d objects, %d Subscriptions locked, %d reports\n",
		o.output, len(res.Objects), l.Len(), len(res.Reports))
	return nil
}

// complete loads the imported objects with their catalogs, as a render of the written directory
// would, and resolves them with the installed CSVs pinned.
func (o *importOptions) complete(cmd *cobra.Command, res *importer.Result) (*lock.Lock, error) {
	var stream bytes.Buffer
	if err := emit.Stream(&stream, res.Objects); err != nil {
		return nil, err
	}
	req, err := o.flags.request(cmd, []string{inputs.Stdin})
	if err != nil {
		return nil, err
	}
	defer req.Close()
	req.Stdin = &stream
	pinImages(&req, res.Lock, false)
	set, err := loadInputs(cmd, req)
	if err != nil {
		return nil, fmt.Errorf("loading the imported inputs: %w", err)
	}
	l, warnings, err := importer.Complete(cmd.Context(), set, res.Lock, req.Resolve)
	if err != nil {
		return nil, err
	}
	reportWarnings(cmd.ErrOrStderr(), warnings)
	return l, nil
}

// scope describes the namespaces imported.
func (o *importOptions) scope() string {
	if len(o.namespaces) == 0 {
		return "any namespace"
	}
	return "namespaces " + strings.Join(o.namespaces, ", ")
}

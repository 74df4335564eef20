package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/cluster/live"
	"github.com/olm-render/olm-render/cluster/verify"
	"github.com/olm-render/olm-render/diff"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/schemas/project"
)

func newStatusCommand() *cobra.Command {
	var kubeconfig, kubeContext, format string
	cmd := &cobra.Command{
		Use:   "status [DIR]",
		Short: "Verify what OLM did on a cluster where it keeps running against a render (--olm=running)",
		Long: "status reads a render written with --olm=running --output-dir DIR (what it applies, and the prediction\n" +
			"under DIR/prediction) and checks the cluster: every Subscription is at its locked CSV (spec.startingCSV)\n" +
			"and that CSV Succeeded; every predicted object is in the cluster as predicted (by server-side dry-run\n" +
			"apply, as Flux detects drift: what OLM or the API server adds is not drift); every InstallPlan waiting\n" +
			"for approval is listed with what the approval contract says of it. What OLM decides and a render cannot\n" +
			"know (its own serving certificates, webhook names from generateName) is reported as known.\n\n" +
			"Exit status: 0 everything is as rendered; 2 drift (something differs from the lock or the prediction:\n" +
			"a CSV beyond the lock, an object edited behind OLM's back, a CSV Failed); 3 nothing differs but an\n" +
			"install or an approval is pending; 1 an error.",
		Example: "  olm-render render --olm=running --output-dir rendered/ manifests/\n" +
			"  olm-render status --kubeconfig ~/.kube/config rendered/\n" +
			"  olm-render status        # every cluster of the project file's fleet, each with its context",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if fleetRun(cmd, args) {
				return runFleet(cmd, statusOfCluster(cmd))
			}
			if len(args) == 0 {
				return errors.New("status needs the render's DIR (or a project file listing clusters, each with its outputDir)")
			}
			applied, prediction, err := readRunningRender(args[0])
			if err != nil {
				return err
			}
			cfg, err := live.RESTConfig(kubeconfig, kubeContext)
			if err != nil {
				return err
			}
			cluster, err := live.Connect(cfg)
			if err != nil {
				return err
			}
			dyn, err := dynamic.NewForConfig(cfg)
			if err != nil {
				return fmt.Errorf("connecting to %s: %w", cfg.Host, err)
			}
			report, err := verify.Verify(cmd.Context(), verify.Clients{Dynamic: dyn, Live: cluster}, applied, prediction)
			if err != nil {
				return err
			}
			if err := printStatus(cmd.OutOrStdout(), report, format); err != nil {
				return err
			}
			if code := report.ExitCode(); code != verify.ExitInSync {
				return &exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig (default: $KUBECONFIG, ~/.kube/config)")
	cmd.Flags().StringVar(&kubeContext, "context", "", "kubeconfig context")
	addOutputFormat(cmd, &format, "table", "table", "yaml", "json")
	completeFiles(cmd, "kubeconfig")
	addProjectFlags(cmd, true)
	return cmd
}

// statusOfCluster is the clusterRun of status: the cluster's output directory, read with the
// cluster's kubeconfig context unless --context is given.
func statusOfCluster(cmd *cobra.Command) clusterRun {
	p := projectOf(cmd)
	return func(c project.Cluster, _, out string) ([]string, error) {
		if out == "" {
			return nil, fmt.Errorf("%s: clusters %s: outputDir is required to check a fleet's clusters", p.file.Shown, c.Name)
		}
		if c.Context != "" && !changedByUser(cmd, "context") {
			return []string{"--context=" + c.Context, out}, nil
		}
		return []string{out}, nil
	}
}

// readRunningRender reads a render written with --olm=running: the objects it applies, and
// its prediction (under emit.PredictionDir, each marked render.PredictionAnnotation).
func readRunningRender(dir string) (applied, prediction []*unstructured.Unstructured, err error) {
	objs, err := diff.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range objs {
		if o.GetAnnotations()[render.PredictionAnnotation] == "true" {
			prediction = append(prediction, o)
		} else {
			applied = append(applied, o)
		}
	}
	if len(prediction) == 0 {
		return nil, nil, fmt.Errorf("%s holds no prediction (%s): status verifies a render written with --olm=running --output-dir", dir, filepath.Join(dir, emit.PredictionDir))
	}
	return applied, prediction, nil
}

// printStatus prints a verification report as a table, YAML or JSON.
func printStatus(w io.Writer, r *verify.Report, format string) error {
	switch format {
	case "json":
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(data))
		return err
	case "yaml":
		data, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tWHAT\tDETAIL")
	for _, items := range [][]verify.Item{r.Subscriptions, r.InstallPlans, r.Objects} {
		for _, it := range items {
			if it.State == verify.OK && it.Message == "" {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", it.State, it.Name, it.Message)
		}
	}
	ok := 0
	for _, it := range r.Objects {
		if it.State == verify.OK {
			ok++
		}
	}
	fmt.Fprintf(tw, "ok\t%d predicted objects as predicted\t\n", ok)
	return tw.Flush()
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/cluster/approve"
	"github.com/olm-render/olm-render/cluster/live"
)

// approveOptions are the flags of olm-render approve.
type approveOptions struct {
	kubeconfig, context string
	namespaces          []string
	once, dryRun        bool
	output              string
}

// approveExitHeld is approve --once's exit status when the report gates (approve.Report.Gates):
// a plan held for another reason than the ceiling, or a namespace not Healthy.
const approveExitHeld = 2

// newApproveCommand returns olm-render approve, a thin adapter of cluster/approve.
func newApproveCommand() *cobra.Command {
	var o approveOptions
	cmd := &cobra.Command{
		Use:   "approve [--once] [--dry-run] [--namespace NS]...",
		Short: "Approve the InstallPlans OLM waits on when the approval contract of their namespace admits them",
		Long: "approve is the InstallPlan approver of clusters where OLM keeps running (render --olm=running): it\n" +
			"approves an InstallPlan waiting for approval (Manual, phase RequiresApproval) only when every CSV it\n" +
			"installs is in the approval contract of its namespace, the ConfigMap olm-render-approval the render\n" +
			"writes there (each Subscription's locked CSV and the CSVs below it that lead up to it). An InstallPlan\n" +
			"is approved whole or not at all: one CSV outside the contract (a version past the lock, another\n" +
			"operator's) holds it, and so does a namespace without a contract or with one that does not parse.\n" +
			"Every plan approved or held gets an Event (InstallPlanApproved, or InstallPlanHeld naming the CSVs\n" +
			"outside the contract), and each contract ConfigMap gets its namespace's health in the annotations\n" +
			"olm-render.dev/health (Healthy, Progressing or Degraded) and olm-render.dev/health-message, which the\n" +
			"Argo CD and Flux health checks read.\n\n" +
			"Without --once it runs as a controller until SIGTERM: it watches InstallPlans, Subscriptions, CSVs and\n" +
			"contract ConfigMaps and logs what it approves and holds on stderr (examples/approver deploys it). With\n" +
			"--once it acts once and prints a report of every plan and every namespace's health. With --dry-run it\n" +
			"decides and reports (WouldApprove for a plan it would approve) and writes nothing: no approval, no\n" +
			"Event, no health annotation.\n\n" +
			"Exit status of --once, to gate CI or an Argo CD PostSync hook: 0 every namespace Healthy, and nothing\n" +
			"held but plans past the locks (the ceiling working: the report marks them \"Held (ceiling)\"); 2 a plan\n" +
			"held for anything else (another operator's CSV, no contract), or a namespace not Healthy (Progressing,\n" +
			"Degraded, or Missing its contract while it has a Manual Subscription or a plan waiting); 1 an error\n" +
			"(the cluster unreachable, a permission missing, bad flags). The kubeconfig is found as kubectl finds it;\n" +
			"in a Pod without one, its service account is used.",
		Example: "  olm-render approve --once\n" +
			"  olm-render approve --once --namespace operators -o yaml\n" +
			"  olm-render approve --once --dry-run\n" +
			"  olm-render approve --namespace operators --namespace team-a",
		Args: cobra.NoArgs,
		RunE: o.run,
	}
	fs := cmd.Flags()
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default: $KUBECONFIG, ~/.kube/config, else the service account of the Pod it runs in)")
	fs.StringVar(&o.context, "context", "", "kubeconfig context")
	fs.StringArrayVar(&o.namespaces, "namespace", nil, "approve only the InstallPlans of this namespace, and watch only it (repeatable; default: all)")
	fs.BoolVar(&o.once, "once", false, "act once and print a report (exit status 2 when a plan is held for more than the ceiling or a namespace is not Healthy) instead of running as a controller")
	fs.BoolVar(&o.dryRun, "dry-run", false, "decide and report (--once) or log (the controller), and write nothing: no approval, no Event, no health annotation")
	addOutputFormat(cmd, &o.output, "table", "table", "yaml", "json")
	completeFiles(cmd, "kubeconfig")
	return cmd
}

// run connects to the cluster and approves, once or as a controller.
func (o *approveOptions) run(cmd *cobra.Command, _ []string) error {
	if !o.once && cmd.Flags().Changed("output") {
		return errors.New("-o/--output formats the report of --once: the controller logs on stderr")
	}
	switch o.output {
	case "table", "yaml", "json":
	default:
		return fmt.Errorf("-o %q: the report's formats are table, yaml and json", o.output)
	}
	cfg, err := live.RESTConfig(o.kubeconfig, o.context)
	if err != nil {
		return err
	}
	clients, err := approve.NewClients(rest.AddUserAgent(cfg, approve.Component))
	if err != nil {
		return err
	}
	if !o.once {
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		return approve.NewController(clients, approve.Options{Namespaces: o.namespaces, Log: cmd.ErrOrStderr(), DryRun: o.dryRun}).Run(ctx)
	}
	return o.runOnce(cmd.Context(), clients, cmd.OutOrStdout(), cmd.ErrOrStderr())
}

// runOnce approves once, prints the report and says with the exit status whether it gates.
func (o *approveOptions) runOnce(ctx context.Context, clients approve.Clients, stdout, stderr io.Writer) error {
	report, err := approve.Once(ctx, clients, approve.Options{Namespaces: o.namespaces, DryRun: o.dryRun})
	if report == nil {
		return err
	}
	if werr := writeApproveReport(stdout, report, o.output); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	if report.Gates() {
		fmt.Fprintln(stderr, report.Summary())
		return &exitError{code: approveExitHeld}
	}
	return nil
}

// writeApproveReport writes the report of approve --once in a format.
func writeApproveReport(w io.Writer, r *approve.Report, format string) error {
	switch format {
	case "yaml":
		data, err := yaml.Marshal(r)
		if err != nil {
			return fmt.Errorf("encoding the report as YAML: %w", err)
		}
		_, err = w.Write(data)
		return err
	case "json":
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding the report as JSON: %w", err)
		}
		_, err = w.Write(append(data, '\n'))
		return err
	}
	return r.WriteTable(w)
}

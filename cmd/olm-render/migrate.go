package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/migrate"
	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/outdir"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// migrateExitRefused is migrate check's exit status when OLM v1 refuses a Subscription.
const migrateExitRefused = 1

// newMigrateCommand holds the commands that move operators from OLM v0 to OLM v1.
func newMigrateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Move operators from OLM v0 to OLM v1 (operator-controller), planned from Git",
		Long: "migrate tells, from the inputs in Git (or what olm-render import read from a cluster), which\n" +
			"Subscriptions OLM v1 can take over, what it creates instead of what OLM v0 created, and the steps\n" +
			"that hand an installed operator over without deleting its CRDs or its workload.",
	}
	cmd.AddCommand(newMigrateCheckCommand(), newMigratePlanCommand())
	return cmd
}

// migrateOptions are the flags of migrate check and plan.
type migrateOptions struct {
	flags  requestFlags
	lf     lockFlags
	format string
	dir    string
}

// add registers the flags both commands share.
func (o *migrateOptions) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	o.flags.addLoad(fs)
	o.flags.v1.add(fs)
	addCertProviderFlag(fs, &o.flags.render.certProvider)
	addOLMFlag(fs, &o.flags.render.target)
	o.lf.add(fs, false)
	addProjectFlags(cmd, false)
	o.flags.complete(cmd)
	completeValues(cmd, "feature-gates", gateNames()...)
}

// verdicts loads the inputs, resolves them against their lock and judges every Subscription.
func (o *migrateOptions) verdicts(cmd *cobra.Command, args []string) (*migrateRun, error) {
	if len(args) == 0 {
		return nil, noInputs(cmd)
	}
	req, err := o.flags.request(cmd, args)
	if err != nil {
		return nil, err
	}
	// Judged for OLM v1, which resolves no dependency: a namespace OLM v0 cannot resolve is
	// judged at the bundles v1 would pin, refused for their dependencies.
	req.Resolve.ForOLMv1 = true
	set, res, err := lockedInputs(cmd, &o.flags, req, o.lf)
	if err != nil {
		req.Close()
		return nil, err
	}
	v1 := req.Render.V1
	if v1.CertProvider == "" {
		v1.CertProvider = req.Render.CertProvider
	}
	return &migrateRun{req: req, set: set, res: res, verdicts: olmv1.Check(set, res, v1)}, nil
}

// migrateRun is one check of the inputs.
type migrateRun struct {
	req      pipeline.Request
	set      *inputs.Set
	res      *resolver.Result
	verdicts []olmv1.Verdict
}

func newMigrateCheckCommand() *cobra.Command {
	var o migrateOptions
	cmd := &cobra.Command{
		Use:   "check PATH...",
		Short: "Say which Subscriptions OLM v1 can take over, and why not",
		Long: "check judges every Subscription of the inputs, at its locked bundle, by OLM v1's rules\n" +
			"(operator-controller v1.11 unless --operator-controller says otherwise): eligible, needs-gate\n" +
			"(eligible once the named feature gates are on) or refused, each reason with a stable code\n" +
			"(dependency, dependent, apiservice, install-mode, conversion-webhook, webhook-rules,\n" +
			"preserve-unknown-fields, operator-group-shared, ...) naming the file and field that decide it.\n\n" +
			"Exit status: 0 nothing refused; 1 a Subscription refused, or an error.",
		Example: "  olm-render migrate check examples/olmv1/v0\n" +
			"  olm-render migrate check -o json --feature-gates SingleOwnNamespaceInstallSupport cluster/",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := o.verdicts(cmd, args)
			if err != nil {
				return err
			}
			defer run.req.Close()
			if err := writeVerdicts(cmd.OutOrStdout(), run.verdicts, o.format); err != nil {
				return err
			}
			if n := refused(run.verdicts); n > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s refused by OLM v1\n", count(n, "Subscription"))
				return &exitError{code: migrateExitRefused}
			}
			return nil
		},
	}
	o.add(cmd)
	addOutputFormat(cmd, &o.format, "table", "table", "json", "yaml")
	return cmd
}

// refused counts the Subscriptions v1 refuses.
func refused(verdicts []olmv1.Verdict) int {
	n := 0
	for _, v := range verdicts {
		if v.Outcome == olmv1.Refused {
			n++
		}
	}
	return n
}

// writeVerdicts writes the verdicts as a table, JSON or YAML.
func writeVerdicts(w io.Writer, verdicts []olmv1.Verdict, format string) error {
	switch format {
	case "json":
		data, err := json.MarshalIndent(verdicts, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	case "yaml":
		data, err := yaml.Marshal(verdicts)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SUBSCRIPTION\tBUNDLE\tVERDICT\tCLUSTEREXTENSION\tREASONS")
	for _, v := range verdicts {
		id := v.ID()
		if v.Generated {
			id += " (generated)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", id, v.Bundle, v.Outcome, v.ClusterExtension, reasonSummary(v))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, v := range verdicts {
		for _, r := range append(v.Reasons, v.Notes...) {
			fmt.Fprintf(w, "%s: %s\n", v.ID(), r)
		}
	}
	return nil
}

// reasonSummary lists a verdict's reason codes.
func reasonSummary(v olmv1.Verdict) string {
	var codes []string
	for _, r := range v.Reasons {
		c := string(r.Code)
		if r.Gate != "" {
			c += " (" + string(r.Gate) + ")"
		}
		if !strings.Contains(strings.Join(codes, ","), c) {
			codes = append(codes, c)
		}
	}
	if len(codes) == 0 {
		return "-"
	}
	return strings.Join(codes, ", ")
}

func newMigratePlanCommand() *cobra.Command {
	var o migrateOptions
	cmd := &cobra.Command{
		Use:   "plan PATH... --output-dir DIR",
		Short: "Plan the move to OLM v1: the v1 inputs, the cluster diff and the steps",
		Long: "plan writes DIR, atomically: v1/, the inputs that replace the Subscriptions OLM v1 takes (the\n" +
			"--olm=v1 render, with --allow-partial: the ones v1 refuses stay with OLM v0); diff.md, the\n" +
			"cluster diff between what OLM v0 created and what OLM v1 will own (untouched CRDs, objects taken\n" +
			"over, renamed RBAC, what v0 created that v1 will not own, what v1 adds); steps.md, the ordered\n" +
			"steps that hand each operator over without deleting its CRDs, their custom resources or its\n" +
			"workload; and check.json, every verdict.",
		Example: "  olm-render migrate plan --output-dir plan/ examples/olmv1/v0",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.dir == "" {
				return errors.New("migrate plan needs --output-dir DIR, the directory to write the plan into")
			}
			run, err := o.verdicts(cmd, args)
			if err != nil {
				return err
			}
			defer run.req.Close()
			files, err := planFiles(run)
			if err != nil {
				return err
			}
			if err := outdir.Write(o.dir, files); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote the plan of %s to %s\n", count(len(run.eligible()), "Subscription"), o.dir)
			return nil
		},
	}
	o.add(cmd)
	addOutputDir(cmd, &o.dir, "the directory to write the plan into (required)")
	return cmd
}

// eligible returns the verdicts v1 takes.
func (r *migrateRun) eligible() []olmv1.Verdict {
	return migrate.Eligible(r.verdicts)
}

// v0Resolvable refuses a plan for inputs OLM v0 cannot resolve: there is nothing OLM v0 runs
// to move.
func v0Resolvable(res *resolver.Result) error {
	var subs []string
	var why string
	for _, ns := range res.Namespaces {
		for _, sel := range ns.Selections {
			if sel.WithoutDependencies != "" {
				subs = append(subs, "Subscription/"+ns.Namespace+"/"+sel.Subscription.Name)
				why = sel.WithoutDependencies
			}
		}
	}
	if len(subs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: OLM v0 cannot resolve them (%s), so there is nothing of theirs to move: bind a catalog that holds their dependencies, or leave them out; olm-render migrate check gives OLM v1's verdict on them",
		strings.Join(subs, ", "), why)
}

// planFiles renders both sides and writes the plan's files.
func planFiles(r *migrateRun) (map[string][]byte, error) {
	// What OLM v0 created is what the inputs render for their own target: where OLM runs, the
	// running render's intent and prediction; elsewhere the render is the install.
	if err := v0Resolvable(r.res); err != nil {
		return nil, err
	}
	v0opts := r.req.Render
	if v0opts.Target != render.TargetRunning {
		v0opts.Target = render.TargetAbsent
	}
	v0, err := pipeline.Render(r.set, r.res, v0opts)
	if err != nil {
		return nil, fmt.Errorf("rendering what OLM v0 created: %w", err)
	}
	v1opts := r.req.Render
	v1opts.Target, v1opts.V1.AllowPartial = render.TargetV1, true
	v1, err := pipeline.Render(r.set, r.res, v1opts)
	if err != nil {
		return nil, fmt.Errorf("rendering for OLM v1: %w", err)
	}
	plan := migrate.Build(migrate.Input{
		V0Target: v0opts.Target,
		V0:       append(append([]*unstructured.Unstructured{}, v0.Objects...), v0.Prediction...),
		V1:       append(append([]*unstructured.Unstructured{}, v1.Objects...), v1.Prediction...),
		Verdicts: r.verdicts,
	})
	files, err := emit.DirFiles(v1.Objects)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for name, data := range files {
		if name != outdir.IndexFile {
			out["v1/"+name] = data
		}
	}
	var diff, steps bytes.Buffer
	if err := plan.WriteDiff(&diff); err != nil {
		return nil, err
	}
	if err := plan.WriteSteps(&steps); err != nil {
		return nil, err
	}
	check, err := json.MarshalIndent(r.verdicts, "", "  ")
	if err != nil {
		return nil, err
	}
	out["diff.md"], out["steps.md"], out["check.json"] = diff.Bytes(), steps.Bytes(), append(check, '\n')
	return out, nil
}

// count says how many of a thing there are: "1 Subscription", "2 Subscriptions".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

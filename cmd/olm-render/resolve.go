package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// resolution is the document `olm-render resolve` prints.
type resolution struct {
	Namespaces []namespaceResolution `json:"namespaces"`
}

type namespaceResolution struct {
	Namespace     string                   `json:"namespace"`
	Subscriptions []subscriptionResolution `json:"subscriptions"`
}

type subscriptionResolution struct {
	Name         string                 `json:"name"`
	Package      string                 `json:"package"`
	Channel      string                 `json:"channel"`
	Bundle       string                 `json:"bundle"`
	Version      string                 `json:"version"`
	Catalog      string                 `json:"catalog"`
	Reason       string                 `json:"reason"`
	Replaces     string                 `json:"replaces,omitempty"`
	Installed    string                 `json:"installed,omitempty"`
	Upgrade      string                 `json:"upgrade,omitempty"`
	Generated    bool                   `json:"generated,omitempty"`
	RequiredBy   []string               `json:"requiredBy,omitempty"`
	Alternatives []resolver.Alternative `json:"alternatives,omitempty"`
}

// resolveFormats are the formats resolve prints.
var resolveFormats = []string{"yaml", "json", "table"}

// summarize turns a resolution into the printed document; upgrades maps "namespace/name" to the
// next upgrade step available from the lock.
func summarize(res *resolver.Result, upgrades map[string]string) resolution {
	out := resolution{Namespaces: []namespaceResolution{}}
	for _, ns := range res.Namespaces {
		nr := namespaceResolution{Namespace: ns.Namespace, Subscriptions: []subscriptionResolution{}}
		for _, s := range ns.Selections {
			sr := subscriptionResolution{
				Name: s.Subscription.Name, Package: s.Bundle.Package, Channel: s.Channel, Bundle: s.Bundle.Name,
				Version: s.Bundle.Version.String(), Reason: s.Reason, Replaces: s.Replaces, Installed: s.Installed,
				Upgrade: upgrades[ns.Namespace+"/"+s.Subscription.Name], Generated: s.Generated,
				RequiredBy: s.RequiredBy, Alternatives: s.Alternatives,
			}
			if s.Catalog != nil {
				sr.Catalog = s.Catalog.Key()
			}
			nr.Subscriptions = append(nr.Subscriptions, sr)
		}
		out.Namespaces = append(out.Namespaces, nr)
	}
	return out
}

func newResolveCommand() *cobra.Command {
	var (
		flags  requestFlags
		lf     lockFlags
		format string
	)
	cmd := &cobra.Command{
		Use:   "resolve PATH...",
		Short: "Print the bundle chosen for every Subscription, why, and the alternatives",
		Long: "resolve resolves as render does — against the lock when there is one, so it shows what render\n" +
			"renders — and prints, per Subscription (dependencies included), the bundle, why it was chosen\n" +
			"(lock pin, channel head, startingCSV, upgrade step, dependency), the upgrade the lock could take\n" +
			"next, and the candidates not chosen with why. It reads catalog metadata only, as OLM's resolver\n" +
			"does (no bundle image is pulled), and writes nothing.",
		Example: "  olm-render resolve examples/quickstart/input\n  olm-render resolve -o table examples/quickstart/input",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := flags.request(cmd, args)
			if err != nil {
				return err
			}
			defer req.Close()
			req.MetadataOnly = true
			var l *lock.Lock
			if !lf.none {
				if l, err = lf.read(cmd, &flags, req.Root, lf.lockPath(req.Paths)); err != nil {
					return err
				}
				pinImages(&req, l, false)
			}
			set, err := loadInputs(cmd, req)
			if err != nil {
				return err
			}
			res, next, _, err := lock.Resolve(cmd.Context(), set, l, req.Resolve)
			if err != nil {
				return fmt.Errorf("resolving subscriptions: %w", err)
			}
			reportWarnings(cmd.ErrOrStderr(), res.Warnings)
			upgrades := nextSteps(cmd, req, set, next)
			return writeResolution(cmd.OutOrStdout(), format, summarize(res, upgrades))
		},
	}
	flags.addLoad(cmd.Flags())
	lf.add(cmd.Flags(), true)
	addOutputFormat(cmd, &format, "yaml", resolveFormats...)
	addProjectFlags(cmd, false)
	flags.complete(cmd)
	return cmd
}

// nextSteps returns the upgrade step each locked Subscription could take next (what `olm-render
// upgrade` would do), by "namespace/name"; nothing when it cannot be computed.
func nextSteps(cmd *cobra.Command, req pipeline.Request, set *inputs.Set, l *lock.Lock) map[string]string {
	out := map[string]string{}
	if l == nil || l.Len() == 0 {
		return out
	}
	up, err := lock.Upgrade(cmd.Context(), lock.UpgradeRequest{Set: set, Lock: l, All: true, Resolve: resolveWith(req.Resolve)})
	if err != nil || len(up.Steps) == 0 {
		return out
	}
	for _, c := range up.Steps[0] {
		if c.Catalog == "" && c.To != "" && c.From != c.To {
			out[c.Namespace+"/"+c.Subscription] = c.To
		}
	}
	return out
}

func writeResolution(w io.Writer, format string, r resolution) error {
	switch format {
	case "yaml":
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "json":
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "table":
		return writeTable(w, r)
	}
	return fmt.Errorf("unknown --output %q: want %s", format, joinOr(resolveFormats))
}

func writeTable(w io.Writer, r resolution) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tSUBSCRIPTION\tPACKAGE\tCHANNEL\tBUNDLE\tUPGRADE\tREASON")
	for _, ns := range r.Namespaces {
		for _, s := range ns.Subscriptions {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ns.Namespace, s.Name, s.Package, s.Channel, s.Bundle,
				orDash(s.Upgrade), strings.ReplaceAll(s.Reason, "\t", " "))
		}
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

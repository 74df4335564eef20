package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// v1Flags are the flags of the OLM v1 target (--olm=v1): the operator-controller the render is
// for.
type v1Flags struct {
	version      string
	gates        []string
	allowPartial bool
}

// add adds the v1 flags.
func (f *v1Flags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.version, "operator-controller", olmv1.DefaultVersion.String(),
		"with --olm=v1: the operator-controller version (v1.10 and earlier need each ClusterExtension's installer ServiceAccount and its RBAC, which the render then applies)")
	fs.StringSliceVar(&f.gates, "feature-gates", nil,
		"with --olm=v1: operator-controller's alpha feature gates that are on, as its --feature-gates takes them: SingleOwnNamespaceInstallSupport (Single and OwnNamespace installs), DeploymentConfig (a Subscription's spec.config)")
	fs.BoolVar(&f.allowPartial, "allow-partial", false,
		"with --olm=v1: leave a Subscription OLM v1 cannot take to OLM v0 (applied as declared, with a warning saying why) instead of failing")
}

// options checks the v1 flags (or the project file's options) and sets them.
func (f *v1Flags) options(cmd *cobra.Command, p *projectState, opts *olmv1.Options) error {
	var err error
	if opts.OperatorController, err = olmv1.ParseVersion(f.version); err != nil {
		return p.optionError(cmd, "operator-controller", err)
	}
	if opts.Gates, err = olmv1.ParseGates(f.gates); err != nil {
		return p.optionError(cmd, "feature-gates", err)
	}
	opts.AllowPartial = f.allowPartial
	return nil
}

// targetNames are the --olm values, for completion.
func targetNames() []string {
	out := make([]string, len(render.Targets))
	for i, t := range render.Targets {
		out[i] = string(t)
	}
	return out
}

// gateNames are operator-controller's gates the render knows, for completion.
func gateNames() []string {
	out := make([]string, len(olmv1.Gates))
	for i, g := range olmv1.Gates {
		out[i] = string(g)
	}
	return out
}

// refuseV1Jumps refuses, for --olm=v1, a lock change that operator-controller would not take
// in one pin: with upgradeConstraintPolicy CatalogProvided a ClusterExtension's version moves
// only to the installed bundle's direct successor (replaces, skips, skipRange) in its channel.
// A multi-version bump is one pull request per hop.
func refuseV1Jumps(set *inputs.Set, next *lock.Lock, changes []lock.Change) error {
	var errs []error
	for _, c := range changes {
		if c.Catalog != "" || c.From == "" || c.To == "" || c.From == c.To {
			continue
		}
		e := next.Entry(c.Namespace, c.Subscription)
		if e == nil {
			continue
		}
		bound := set.Catalog(e.Catalog.Namespace, e.Catalog.Name)
		if bound == nil || bound.Catalog == nil || bound.Catalog.Package(e.Package) == nil {
			continue
		}
		pkg := bound.Catalog.Package(e.Package)
		installed, target := pkg.Bundle(c.From), pkg.Bundle(c.To)
		if installed == nil || target == nil {
			continue
		}
		if err := olmv1.CheckHop(bound.Catalog, e.Package, installed, target, []string{e.Channel}); err != nil {
			errs = append(errs, fmt.Errorf("Subscription %s/%s: %w (with --olm=v1 a pull request moves a ClusterExtension one hop: olm-render upgrade proposes it)", c.Namespace, c.Subscription, err))
		}
	}
	return errors.Join(errs...)
}

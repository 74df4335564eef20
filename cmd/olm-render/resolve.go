package main

import (
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
)

// resolution is the YAML document `olm-render resolve` prints.
type resolution struct {
	Namespaces []namespaceResolution `json:"namespaces"`
}

type namespaceResolution struct {
	Namespace     string                   `json:"namespace"`
	Subscriptions []subscriptionResolution `json:"subscriptions"`
}

type subscriptionResolution struct {
	Name       string   `json:"name"`
	Package    string   `json:"package"`
	Channel    string   `json:"channel"`
	Bundle     string   `json:"bundle"`
	Version    string   `json:"version"`
	Catalog    string   `json:"catalog"`
	Replaces   string   `json:"replaces,omitempty"`
	Installed  string   `json:"installed,omitempty"`
	Generated  bool     `json:"generated,omitempty"`
	RequiredBy []string `json:"requiredBy,omitempty"`
}

func summarize(res *resolver.Result) resolution {
	out := resolution{Namespaces: []namespaceResolution{}}
	for _, ns := range res.Namespaces {
		nr := namespaceResolution{Namespace: ns.Namespace, Subscriptions: []subscriptionResolution{}}
		for _, s := range ns.Selections {
			sr := subscriptionResolution{
				Name:       s.Subscription.Name,
				Package:    s.Bundle.Package,
				Channel:    s.Channel,
				Bundle:     s.Bundle.Name,
				Version:    s.Bundle.Version.String(),
				Replaces:   s.Replaces,
				Installed:  s.Installed,
				Generated:  s.Generated,
				RequiredBy: s.RequiredBy,
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
	var flags requestFlags
	cmd := &cobra.Command{
		Use:   "resolve PATH...",
		Short: "Print the bundle chosen for every Subscription, and the dependencies pulled in",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := flags.request(cmd, args)
			if err != nil {
				return err
			}
			defer req.Close()
			set, err := loadInputs(cmd, req)
			if err != nil {
				return err
			}
			res, err := pipeline.Resolve(cmd.Context(), set, req.Resolve)
			if err != nil {
				return err
			}
			reportWarnings(cmd.ErrOrStderr(), res.Warnings)
			b, err := yaml.Marshal(summarize(res))
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	flags.addLoad(cmd.Flags())
	return cmd
}

package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

func newCatalogCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Inspect and validate catalog snapshots",
	}
	cmd.AddCommand(newCatalogValidateCommand())
	return cmd
}

func newCatalogValidateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "validate PATH...",
		Short: "Load catalog snapshots (FBC, registry+v1 bundles or package manifests) and report every problem",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var all diag.Problems
			for _, path := range args {
				c, err := catalog.Load(path)
				if err != nil {
					ps := diag.From(err)
					if len(ps) == 1 && ps[0].Origin.File == "" && ps[0].Object == "" {
						ps[0].Object = path
					}
					all = append(all, ps...)
					continue
				}
				ps := catalog.Validate(c)
				all = append(all, ps...)
				if ps.Err() != nil {
					continue
				}
				packages, channels, bundles := c.Counts()
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s, %d packages, %d channels, %d bundles: valid\n",
					path, c.Format, packages, channels, bundles)
			}
			reportWarnings(cmd.ErrOrStderr(), all.Warnings())
			if err := all.Err(); err != nil {
				return fmt.Errorf("invalid catalog: %w", errors.Join(err))
			}
			return nil
		},
	}
}

package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version
			if v == "" {
				v = "(devel)"
				if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
					v = info.Main.Version
				}
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "olm-render %s\n", v)
			return err
		},
	}
}

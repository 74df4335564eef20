package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The grammar every command follows, as kubectl's: inputs are arguments; -o/--output is the
// output format (completed in the shell); a directory written is --output-dir; a flag taking one
// of a few values completes them. Old spellings stay as hidden aliases that warn.

// aliasAnnotation marks a deprecated flag: its value is the flag it stands for.
const aliasAnnotation = "olm-render.dev/alias-of"

// joinOr lists values as "a, b or c".
func joinOr(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// addOutputFormat adds -o/--output, the output format: one of formats, def by default.
func addOutputFormat(cmd *cobra.Command, p *string, def string, formats ...string) {
	cmd.Flags().StringVarP(p, "output", "o", def, "output format: "+joinOr(formats))
	completeValues(cmd, "output", formats...)
}

// addOutputDir adds --output-dir, the directory a command writes.
func addOutputDir(cmd *cobra.Command, p *string, usage string) {
	cmd.Flags().StringVar(p, "output-dir", "", usage)
	completeDirs(cmd, "output-dir")
}

// addAlias adds a hidden, deprecated flag (with its shorthand, if any) that sets target: using
// it prints a warning on stderr naming target.
func addAlias(cmd *cobra.Command, name, shorthand, target string) {
	t := cmd.Flags().Lookup(target)
	var value string
	cmd.Flags().StringVarP(&value, name, shorthand, "", "deprecated: use --"+target)
	f := cmd.Flags().Lookup(name)
	f.Hidden = true
	f.Annotations = map[string][]string{aliasAnnotation: {target}}
	if fn, ok := cmd.GetFlagCompletionFunc(target); ok && t != nil {
		_ = cmd.RegisterFlagCompletionFunc(name, fn)
	}
}

// applyAliases moves the values of deprecated aliases to the flags they stand for, warning about
// each; giving both is an error. Every command runs it before its own work.
func applyAliases(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		target := f.Annotations[aliasAnnotation]
		if err != nil || len(target) == 0 || !f.Changed {
			return
		}
		switch {
		case cmd.Flags().Changed(target[0]):
			err = fmt.Errorf("%s and --%s are the same setting: give only --%s", flagName(f), target[0], target[0])
		default:
			warnf(cmd, "%s is deprecated: use --%s", flagName(f), target[0])
			err = cmd.Flags().Set(target[0], f.Value.String())
		}
	})
	return err
}

// flagName shows a flag as given: its long name, with the shorthand when it has one.
func flagName(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + "/--" + f.Name
	}
	return "--" + f.Name
}

// warnf prints a warning on stderr.
func warnf(cmd *cobra.Command, format string, args ...any) {
	fmt.Fprintf(cmd.ErrOrStderr(), "warning: "+format+"\n", args...)
}

// completeValues completes a flag's value from a fixed list (for a comma-separated list flag,
// each element after the last comma).
func completeValues(cmd *cobra.Command, name string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		f := cmd.Flags().Lookup(name)
		prefix := ""
		if f != nil && f.Value.Type() == "stringSlice" {
			if i := strings.LastIndex(toComplete, ","); i >= 0 {
				prefix = toComplete[:i+1]
			}
		}
		out := make([]string, 0, len(values))
		for _, v := range values {
			if !slices.Contains(strings.Split(prefix, ","), v) {
				out = append(out, prefix+v)
			}
		}
		directive := cobra.ShellCompDirectiveNoFileComp
		if f != nil && f.Value.Type() == "stringSlice" {
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		return out, directive
	})
}

// completeDirs completes a flag's value with directories.
func completeDirs(cmd *cobra.Command, names ...string) {
	for _, name := range names {
		if cmd.Flags().Lookup(name) == nil {
			continue
		}
		_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		})
	}
}

// completeFiles completes a flag's value with files of the given extensions (any file when none).
func completeFiles(cmd *cobra.Command, name string, exts ...string) {
	if cmd.Flags().Lookup(name) == nil {
		return
	}
	_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		if len(exts) == 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return exts, cobra.ShellCompDirectiveFilterFileExt
	})
}

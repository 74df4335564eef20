package main

import (
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/lock"
)

// printSummary tells a first-time user what a render did: the bundle each Subscription got and
// why, the objects per kind, and the commands to look further. Each command runs as printed:
// it carries the flags given on this command line that it takes too (what the project file
// sets, it reads itself).
func printSummary(w io.Writer, cmd *cobra.Command, res *resolver.Result, objs []*unstructured.Unstructured, args []string, output string, locked bool) {
	fmt.Fprintln(w, "\nSummary")
	for _, ns := range res.Namespaces {
		for _, s := range ns.Selections {
			fmt.Fprintf(w, "  %s/%s → %s\n      %s\n", ns.Namespace, s.Subscription.Name, s.Bundle.Name, s.Reason)
		}
	}
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GetKind()]++
	}
	parts := make([]string, 0, len(kinds))
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
	}
	fmt.Fprintf(w, "  %d objects: %s\n", len(objs), strings.Join(parts, ", "))
	in := shellJoin(args)
	hint := func(target *cobra.Command, verb string) string {
		return strings.Join(append([]string{"olm-render", verb}, hintFlags(cmd, target)...), " ")
	}
	fmt.Fprintln(w, "Next")
	fmt.Fprintf(w, "  %s -o table %s     why each bundle, and the alternatives\n", hint(newResolveCommand(), "resolve"), in)
	if output == "" {
		fmt.Fprintf(w, "  %s --output-dir rendered/ %s  one file per object, for Git\n", hint(newRenderCommand(), "render"), in)
	}
	if locked {
		fmt.Fprintf(w, "  %s --all --dry-run %s  the next upgrade steps\n", hint(newUpgradeCommand(), "upgrade"), in)
	} else {
		fmt.Fprintf(w, "  %s %s  pin what was resolved in %s (upgrades then move it)\n", hint(newLockCommand(), "lock"), in, lock.FileName)
	}
	fmt.Fprintln(w, "  README.md: kustomize, Argo CD, Flux, registries, pull-request diffs")
}

// notCarried are the flags of a render a hint never repeats: they choose what this render
// prints or writes, not what the inputs mean.
var notCarried = []string{"summary", "output", "output-dir", "locked", "no-lock", "for", "flux-source", "flux-namespace"}

// hintFlags are the flags given on cmd's command line that target takes too, as arguments.
func hintFlags(cmd, target *cobra.Command) []string {
	var out []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(notCarried, f.Name) || target.Flags().Lookup(f.Name) == nil {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+shellQuote(v))
			}
			return
		}
		out = append(out, "--"+f.Name+"="+shellQuote(f.Value.String()))
	})
	return out
}

// plainWord is a word a shell reads as itself.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@,+%-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellJoin quotes each word and joins them with spaces.
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellQuote(w)
	}
	return strings.Join(out, " ")
}

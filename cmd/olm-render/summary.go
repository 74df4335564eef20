package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/resolver"
)

// printSummary tells a first-time user what a render did: the bundle each Subscription got and
// why, the objects per kind, and the commands to look further.
func printSummary(w io.Writer, res *resolver.Result, objs []*unstructured.Unstructured, args []string, output string) {
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
	in := strings.Join(args, " ")
	fmt.Fprintln(w, "Next")
	fmt.Fprintf(w, "  olm-render resolve -o table %s     why each bundle, and the alternatives\n", in)
	if output == "" {
		fmt.Fprintf(w, "  olm-render render --output-dir rendered/ %s  one file per object, for Git\n", in)
	}
	fmt.Fprintf(w, "  olm-render upgrade --all --dry-run %s  the next upgrade steps\n", in)
	fmt.Fprintln(w, "  README.md: kustomize, Argo CD, Flux, registries, pull-request diffs")
}

package resolver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/resolver/solver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// DefaultGlobalCatalogNamespace is the namespace whose CatalogSources every namespace sees, as
// upstream OLM installs it (OpenShift uses openshift-marketplace).
const DefaultGlobalCatalogNamespace = "olm"

// excludeGlobalAnnotation on an OperatorGroup hides the global catalog namespace from its
// namespace's resolution.
const excludeGlobalAnnotation = "olm.operatorframework.io/exclude-global-namespace-resolution"

// Options control resolution.
type Options struct {
	// Installed names the CSV installed for a Subscription ("namespace/name"), as the lock file
	// records it; it overrides the Subscription's status.installedCSV.
	Installed map[string]string
	// InstalledFrom is the lock file Installed comes from, as messages show it.
	InstalledFrom string
	// Pinned Subscriptions ("namespace/name") keep their installed CSV exactly: no upgrade is
	// considered (a render with a lock file).
	Pinned map[string]bool
	// GlobalCatalogNamespace is the namespace whose catalogs every namespace sees;
	// DefaultGlobalCatalogNamespace when empty.
	GlobalCatalogNamespace string
	// ForOLMv1 resolves for a cluster where OLM v1 runs: a namespace OLM v0 cannot resolve
	// with its bundles' dependencies is resolved again without them, as operator-controller
	// selects (it never resolves a dependency; it refuses a bundle that declares one). Its
	// selections carry OLM v0's error (Selection.WithoutDependencies), and a warning says so,
	// so that OLM v1's verdict on them can be given, not OLM v0's failure alone.
	ForOLMv1 bool
}

// unmarshal decodes a property value.
func unmarshal(raw json.RawMessage, v any) error { return json.Unmarshal(raw, v) }

// Resolve resolves every Subscription of the set, namespace by namespace.
func Resolve(ctx context.Context, set *inputs.Set, opts Options) (*Result, error) {
	if opts.GlobalCatalogNamespace == "" {
		opts.GlobalCatalogNamespace = DefaultGlobalCatalogNamespace
	}
	if err := scopeProblems(set, opts.GlobalCatalogNamespace).Err(); err != nil {
		return nil, err
	}
	env, err := newCELEnvironment()
	if err != nil {
		return nil, err
	}
	byNS := map[string][]*inputs.Subscription{}
	var namespaces []string
	for _, s := range set.Subscriptions {
		if _, ok := byNS[s.Namespace]; !ok {
			namespaces = append(namespaces, s.Namespace)
		}
		byNS[s.Namespace] = append(byNS[s.Namespace], s)
	}
	slices.Sort(namespaces)
	res := &Result{}
	entries := map[*inputs.Catalog][]*entry{}
	indexes := map[*inputs.Catalog]*scopeIndex{}
	for _, c := range set.Catalogs {
		entries[c] = catalogEntries(c)
		indexes[c] = newScopeIndex(entries[c])
	}
	var failures []*NamespaceError
	for _, ns := range namespaces {
		subs := byNS[ns]
		slices.SortFunc(subs, func(a, b *inputs.Subscription) int { return cmp.Compare(a.Name, b.Name) })
		r := &resolution{set: set, opts: opts, cel: env, ns: ns, subs: subs, catalogEntries: entries, catalogIndex: indexes, vars: map[string]*bundleVariable{}}
		nr, err := r.resolve(ctx)
		if env.failed != nil {
			return nil, env.failed
		}
		if err != nil && opts.ForOLMv1 {
			r2 := &resolution{set: set, opts: opts, cel: env, ns: ns, subs: subs, catalogEntries: entries, catalogIndex: indexes, vars: map[string]*bundleVariable{},
				withoutDependencies: true}
			if nr2, err2 := r2.resolve(ctx); err2 == nil && env.failed == nil {
				res.Namespaces = append(res.Namespaces, withoutDependencies(nr2, err))
				res.Warnings = append(res.Warnings, withoutDependenciesWarning(subs, err))
				continue
			}
		}
		if err != nil {
			failures = append(failures, &NamespaceError{Namespace: ns, Subscriptions: subs, Err: err, hints: r.hints(), causes: append(r.causes, r.lints...).Sorted()})
			continue
		}
		res.Namespaces = append(res.Namespaces, nr)
		res.Warnings = append(res.Warnings, r.warnings...)
		res.Warnings = append(res.Warnings, r.lints...)
	}
	if len(failures) > 0 {
		// A bundle that could not be loaded may be what the resolution missed: say so first.
		if err := brokenProblems(set, nil).Err(); err != nil {
			return nil, err
		}
		return nil, &ResolutionError{Namespaces: failures}
	}
	broken := brokenProblems(set, res)
	if err := broken.Err(); err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, broken.Warnings()...).Sorted()
	return res, nil
}

// resolution is the resolution of one namespace.
type resolution struct {
	set            *inputs.Set
	opts           Options
	cel            *celEnvironment
	ns             string
	subs           []*inputs.Subscription
	catalogEntries map[*inputs.Catalog][]*entry
	// scope is every entry the namespace sees: installed CSVs first, then visible catalogs.
	scope     []*entry
	installed map[string]*entry // by Subscription name
	// catalogIndex indexes each catalog's entries, once for every namespace; parts index
	// scope: the installed CSVs', then each visible catalog's (indexScope).
	catalogIndex map[*inputs.Catalog]*scopeIndex
	parts        []*scopeIndex
	vars         map[string]*bundleVariable
	order        []*bundleVariable
	warnings     diag.Problems
	// why records, per Subscription, how its candidates were chosen (for Selection.Reason).
	why map[string]*choice
	// fixes are hints for Subscriptions that name what their catalog does not have.
	fixes []hint
	// lints are the constraints of the bundles considered that can never be satisfied (a CEL
	// rule over a constant that is no version), as warnings naming their file and field.
	lints diag.Problems
	// causes are the problems of the user's own objects that make the resolution fail (two
	// OperatorGroups in the namespace).
	causes diag.Problems
	// withoutDependencies leaves out every bundle's dependencies (Options.ForOLMv1).
	withoutDependencies bool
}

func (r *resolution) resolve(ctx context.Context) (*NamespaceResult, error) {
	var ogs []*inputs.OperatorGroup
	for _, og := range r.set.OperatorGroups {
		if og.Namespace == r.ns {
			ogs = append(ogs, og)
		}
	}
	if len(ogs) != 1 {
		r.causes = append(r.causes, operatorGroupProblems(r.ns, ogs)...)
		return nil, operatorGroupError(r.ns, ogs)
	}
	visible := []string{r.ns}
	if ogs[0].Annotations[excludeGlobalAnnotation] != "true" && r.opts.GlobalCatalogNamespace != r.ns {
		visible = append(visible, r.opts.GlobalCatalogNamespace)
	}
	if err := r.installedEntries(); err != nil {
		return nil, err
	}
	r.indexScope(visible)
	var vars []solver.Variable
	// Installed state first, as OLM does.
	var installedRoots []*entry
	for _, s := range r.subs {
		if e := r.installed[s.Name]; e != nil {
			installedRoots = append(installedRoots, e)
		}
	}
	if _, err := r.expand(installedRoots, "", r.ns); err != nil {
		return nil, err
	}
	for _, s := range r.subs {
		v, err := r.subscriptionVariable(s)
		if err != nil {
			return nil, err
		}
		vars = append(vars, v)
	}
	bundleVars := make([]solver.Variable, 0, len(r.order))
	for _, v := range r.order {
		bundleVars = append(bundleVars, v)
	}
	all := append(bundleVars, vars...)
	all = append(all, invariants(r.order)...)
	chosen, err := solver.Solve(ctx, all)
	if err != nil {
		return nil, err
	}
	return r.result(chosen), nil
}

// installedEntries builds the entries of the CSVs installed for the Subscriptions: the lock's,
// or status.installedCSV. The CSV's content is the bundle of that name in the Subscription's
// catalog, or in any other bound catalog.
func (r *resolution) installedEntries() error {
	r.installed = map[string]*entry{}
	var errs []error
	for _, s := range r.subs {
		key := s.Namespace + "/" + s.Name
		csv := r.opts.Installed[key]
		if csv == "" && !r.opts.Pinned[key] {
			csv = s.Status.InstalledCSV
		}
		if csv == "" {
			continue
		}
		found := r.findBundle(s, csv)
		if found == nil {
			src := s.Spec.CatalogSourceNamespace + "/" + s.Spec.CatalogSource
			from := "installed"
			if r.opts.Installed[key] != "" && r.opts.InstalledFrom != "" {
				from = "locked in " + r.opts.InstalledFrom
			}
			errs = append(errs, fmt.Errorf("bundle %s %s for Subscription %s is no longer in catalog %s, and no other bound catalog has it: bind a catalog snapshot (or bundle directory) that holds it, or run `olm-render lock` to resolve afresh", csv, from, key, src))
			continue
		}
		e := (&entry{
			id:        existingCatalog + "/" + r.ns + "//" + csv,
			bundle:    found.bundle,
			namespace: r.ns,
			props:     found.props,
			sub:       s,
		}).index()
		r.installed[s.Name] = e
		r.scope = append(r.scope, e)
	}
	return errors.Join(errs...)
}

// findBundle finds the entry of a CSV for a Subscription: in its catalog (its channel first,
// then the default channel, then by channel name), else in any bound catalog.
func (r *resolution) findBundle(s *inputs.Subscription, csv string) *entry {
	var own, other []*entry
	for _, c := range r.set.Catalogs {
		for _, e := range r.catalogEntries[c] {
			if e.bundle.Name != csv {
				continue
			}
			if c.Name == s.Spec.CatalogSource && c.Namespace == s.Spec.CatalogSourceNamespace {
				own = append(own, e)
			} else {
				other = append(other, e)
			}
		}
	}
	candidates := append(own, other...)
	if len(candidates) == 0 {
		return nil
	}
	rank := func(e *entry) int {
		switch {
		case e.channel == s.Spec.Channel:
			return 0
		case e.defaultChannel:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(candidates, func(a, b *entry) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.channel, b.channel))
	})
	return candidates[0]
}

// variable returns the variable of an entry, creating it.
func (r *resolution) variable(e *entry) (*bundleVariable, bool) {
	if v, ok := r.vars[e.id]; ok {
		return v, false
	}
	v := &bundleVariable{e: e, roots: map[string]bool{}}
	for _, p := range e.props {
		if p.Type == catalog.TypeDeprecated {
			v.constraints = append(v.constraints, solver.Pretty(solver.Prohibited(), fmt.Sprintf("bundle %s is deprecated", e.id)))
			break
		}
	}
	r.vars[e.id] = v
	r.order = append(r.order, v)
	return v, true
}

// expand creates the variables of roots and of everything they depend on (OLM's
// getBundleVariables), with dependency candidates in OLM's preference order. It returns the
// roots' variables.
func (r *resolution) expand(roots []*entry, sub, preferredNS string) ([]*bundleVariable, error) {
	var out []*bundleVariable
	stack := slices.Clone(roots)
	slices.Reverse(stack)
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v, created := r.variable(e)
		if sub != "" {
			v.roots[sub] = true
		}
		if !created || r.withoutDependencies {
			continue
		}
		preds, err := r.predicatesOf(e)
		if err != nil {
			return nil, fmt.Errorf("%s: bundle %s: its dependencies: %w", dependenciesOrigin(e.bundle), e.bundle.Name, err)
		}
		for _, p := range preds {
			matches, err := r.matching(p, e, preferredNS)
			if err != nil {
				return nil, err
			}
			ids := make([]solver.Identifier, len(matches))
			for i, m := range matches {
				ids[i] = solver.Identifier(m.id)
			}
			v.deps = append(v.deps, ids)
			v.preds = append(v.preds, p)
			v.constraints = append(v.constraints, solver.Pretty(solver.Dependency(ids...),
				fmt.Sprintf("bundle %s requires an operator %s", e.bundle.Name, p)))
			for i := len(matches) - 1; i >= 0; i-- {
				if _, seen := r.vars[matches[i].id]; !seen {
					stack = append(stack, matches[i])
				}
			}
		}
	}
	for _, e := range roots {
		out = append(out, r.vars[e.id])
	}
	// Roots reached through dependencies also carry the Subscription.
	if sub != "" {
		r.markRoots(out, sub)
	}
	return out, nil
}

// markRoots records sub on every variable reachable from vs.
func (r *resolution) markRoots(vs []*bundleVariable, sub string) {
	seen := map[*bundleVariable]bool{}
	var walk func(v *bundleVariable)
	walk = func(v *bundleVariable) {
		if v == nil || seen[v] {
			return
		}
		seen[v] = true
		v.roots[sub] = true
		for _, ids := range v.deps {
			for _, id := range ids {
				walk(r.vars[string(id)])
			}
		}
	}
	for _, v := range vs {
		walk(v)
	}
}

// sourceKey groups entries as OLM's source filter does: (catalog, package, channel), or an
// installed CSV alone.
type sourceKey struct {
	catalog *inputs.Catalog
	pkg     string
	channel string
	csv     string
}

func keyOf(e *entry) sourceKey {
	if e.installed() {
		return sourceKey{csv: e.id}
	}
	return sourceKey{catalog: e.catalog, pkg: e.bundle.Package, channel: e.channel}
}

// indexScope adds the entries of the catalogs in the visible namespaces to the scope, after
// the installed CSVs', and indexes it: the installed CSVs here, each catalog by the index
// Resolve built once.
func (r *resolution) indexScope(visible []string) {
	r.parts = []*scopeIndex{newScopeIndex(r.scope)}
	for _, c := range r.set.Catalogs {
		if slices.Contains(visible, c.Namespace) {
			r.scope = append(r.scope, r.catalogEntries[c]...)
			r.parts = append(r.parts, r.catalogIndex[c])
		}
	}
}

// scopeIndex indexes entries by source, provided GVK and package, each list in the entries'
// order.
type scopeIndex struct {
	bySource  map[sourceKey][]*entry
	byGVK     map[catalog.GVKValue][]*entry
	byPackage map[string][]*entry
}

func newScopeIndex(entries []*entry) *scopeIndex {
	x := &scopeIndex{bySource: map[sourceKey][]*entry{}, byGVK: map[catalog.GVKValue][]*entry{}, byPackage: map[string][]*entry{}}
	for _, e := range entries {
		k := keyOf(e)
		x.bySource[k] = append(x.bySource[k], e)
		for gvk := range e.gvks {
			x.byGVK[gvk] = append(x.byGVK[gvk], e)
		}
		for pkg := range e.packages {
			x.byPackage[pkg] = append(x.byPackage[pkg], e)
		}
	}
	return x
}

// joined returns the lists of every part for one key, in the parts' order (the scope's); the
// list itself when only one part has entries. The result must not be changed.
func (r *resolution) joined(list func(*scopeIndex) []*entry) []*entry {
	var out []*entry
	n := 0
	for _, x := range r.parts {
		if l := list(x); len(l) > 0 {
			if n++; n == 1 {
				out = l
				continue
			}
			if n == 2 {
				out = slices.Clip(out)
			}
			out = append(out, l...)
		}
	}
	return out
}

// bySource returns the scope's entries of one source (a catalog's package channel, or an
// installed CSV), which one part holds.
func (r *resolution) bySource(k sourceKey) []*entry {
	for _, x := range r.parts {
		if l := x.bySource[k]; len(l) > 0 {
			return l
		}
	}
	return nil
}

// byGVK returns the scope's entries that provide an API.
func (r *resolution) byGVK(gvk catalog.GVKValue) []*entry {
	return r.joined(func(x *scopeIndex) []*entry { return x.byGVK[gvk] })
}

// byPackage returns the scope's entries of a package.
func (r *resolution) byPackage(pkg string) []*entry {
	return r.joined(func(x *scopeIndex) []*entry { return x.byPackage[pkg] })
}

// candidatesFor narrows the scope for a predicate using the indexes; compound and CEL
// predicates see the whole scope.
func (r *resolution) candidatesFor(p predicate) []*entry {
	switch p := p.(type) {
	case gvkPredicate:
		return r.byGVK(catalog.GVKValue{Group: p.group, Version: p.version, Kind: p.kind})
	case packagePredicate:
		return r.byPackage(p.name)
	}
	return r.scope
}

// matching returns the entries in scope that satisfy p, in OLM's order: grouped by source
// (catalog, package, channel; an installed CSV alone), catalogs by preference, groups inside a
// catalog default channel first then by package and channel name, each group in channel order.
func (r *resolution) matching(p predicate, from *entry, preferredNS string) ([]*entry, error) {
	seen := map[sourceKey]bool{}
	var keys []sourceKey
	for _, e := range r.candidatesFor(p) {
		if k := keyOf(e); !seen[k] && p.test(e) {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	defaultOf := func(k sourceKey) bool {
		g := r.bySource(k)
		return len(g) > 0 && g[0].defaultChannel
	}
	slices.SortStableFunc(keys, func(a, b sourceKey) int {
		if c := catalogCompare(a.catalog, b.catalog, from.catalog, preferredNS); c != 0 {
			return c
		}
		if a.catalog == nil {
			return cmp.Compare(a.csv, b.csv)
		}
		da, db := defaultOf(a), defaultOf(b)
		if da != db {
			if da {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.channel, b.channel))
	})
	var out []*entry
	for _, k := range keys {
		ordered := r.bySource(k)
		if k.catalog != nil {
			var err error
			if ordered, err = sortChannel(ordered); err != nil {
				return nil, err
			}
		}
		for _, e := range ordered {
			if p.test(e) {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// operatorGroupProblems reports each OperatorGroup of a namespace holding several, naming the
// others: OLM resolves nothing there until one is left.
func operatorGroupProblems(ns string, ogs []*inputs.OperatorGroup) diag.Problems {
	var out diag.Problems
	for _, og := range ogs {
		var others []string
		for _, o := range ogs {
			if o != og {
				others = append(others, fmt.Sprintf("%s (%s)", o.Name, o.Origin))
			}
		}
		out.Errorf(og.Origin, "OperatorGroup/"+og.Namespace+"/"+og.Name, "metadata.namespace",
			"one of %d OperatorGroups in namespace %s, with %s: OLM expects exactly one in a namespace and resolves nothing there; keep one, or move the others to namespaces of their own",
			len(ogs), ns, strings.Join(others, " and "))
	}
	return out
}

// operatorGroupError is OLM's error for a namespace without exactly one OperatorGroup, with the
// fix.
func operatorGroupError(ns string, ogs []*inputs.OperatorGroup) error {
	msg := fmt.Sprintf("expected 1 OperatorGroup in the namespace, found %d", len(ogs))
	if len(ogs) == 0 {
		return fmt.Errorf("%s: declare an OperatorGroup in namespace %s (spec: {} targets all namespaces)", msg, ns)
	}
	names := make([]string, len(ogs))
	for i, og := range ogs {
		names[i] = og.Name
		if o := og.Origin.String(); o != "" {
			names[i] += " (" + o + ")"
		}
	}
	return fmt.Errorf("%s: keep one of %s", msg, strings.Join(names, " and "))
}

package olmv1

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// generatedByAnnotation marks a Subscription OLM v0 created for a dependency.
const generatedByAnnotation = "olm.generated-by"

// Check gives every Subscription of a resolution (those declared, and those OLM v0 generated for
// dependencies) OLM v1's verdict, with the options' operator-controller: eligible, needs-gate
// (with the gates its reasons name), or refused, each reason with a stable code, the file and
// field it is about, and the operator-controller rule. Verdicts are sorted by namespace and name.
// Options that do not check (an unknown gate or provider) count as the defaults.
func Check(set *inputs.Set, res *resolver.Result, opts Options) []Verdict {
	if o, err := opts.withDefaults(); err == nil {
		opts = o
	} else {
		opts, _ = Options{}.withDefaults()
	}
	p := newPlan(set, res, opts)
	out := make([]Verdict, len(p.items))
	for i, it := range p.items {
		out[i] = it.verdict
	}
	return out
}

// plan is what v1 makes of a resolution: per Subscription, a verdict and, where the bundle
// renders, what operator-controller creates for it.
type plan struct {
	set   *inputs.Set
	opts  Options
	items []*item
	// catalogs names the ClusterCatalog of each declared CatalogSource (namespace/name), and
	// images the image it serves, or why it cannot be one.
	catalogs map[string]string
	images   map[string]pinned
	warnings diag.Problems
}

// pinned is a CatalogSource's image by digest, or why it cannot be pinned.
type pinned struct {
	image string
	err   error
}

// item is one Subscription.
type item struct {
	sel     *resolver.Selection
	verdict Verdict
	scope   scope
	bundle  *bundle
	ext     extension
	// config is the deploymentConfig as operator-controller decodes it.
	config *v1alpha1.SubscriptionConfig
	// objects are what operator-controller's renderer creates for the bundle, nil when it
	// cannot render it.
	objects []*unstructured.Unstructured
}

// newPlan judges every selection of a resolution.
func newPlan(set *inputs.Set, res *resolver.Result, opts Options) *plan {
	p := &plan{set: set, opts: opts, catalogs: clusterCatalogNames(set), images: map[string]pinned{}}
	for _, cs := range set.CatalogSources {
		image, warnings, err := catalogImage(set, cs)
		p.images[cs.Namespace+"/"+cs.Name] = pinned{image: image, err: err}
		p.warnings = append(p.warnings, warnings...)
	}
	for _, ns := range res.Namespaces {
		for _, sel := range ns.Selections {
			p.items = append(p.items, p.judge(ns.Namespace, sel))
		}
	}
	p.nameCollisions()
	p.objectCollisions()
	for _, it := range p.items {
		it.verdict.decide()
	}
	slices.SortFunc(p.items, func(a, b *item) int {
		return cmp.Or(cmp.Compare(a.verdict.Namespace, b.verdict.Namespace), cmp.Compare(a.verdict.Subscription, b.verdict.Subscription))
	})
	return p
}

// judge applies every rule to one selection.
func (p *plan) judge(ns string, sel *resolver.Selection) *item {
	sub := sel.Subscription
	it := &item{sel: sel, scope: scopeOf(p.set, ns)}
	v := &it.verdict
	*v = Verdict{Namespace: ns, Subscription: sub.Name, Origin: sub.Origin, Generated: sel.Generated || sub.Generated,
		Package: sel.Bundle.Package, Bundle: sel.Bundle.Name, Version: sel.Bundle.Version.String(), Channel: sel.Channel,
		ClusterExtension: sub.Name, Mode: string(it.scope.mode), WatchNamespace: it.scope.watch}
	it.ext = extension{name: sub.Name, namespace: ns, pkg: sel.Bundle.Package, version: v.Version, channel: sel.Channel}
	if it.scope.mode != v1alpha1.InstallModeTypeAllNamespaces {
		it.ext.watch = it.scope.watch
	}
	if p.opts.OperatorController.NeedsServiceAccount() {
		it.ext.serviceAccount = installerName(sub.Name)
	}
	v.Reasons = append(v.Reasons, it.scope.reasons...)
	v.Notes = append(v.Notes, it.scope.notes...)
	v.Reasons = append(v.Reasons, dependent(sel)...)
	if sel.WithoutDependencies != "" {
		v.Notes = append(v.Notes, Reason{Code: NoteV0Unresolvable, Origin: sub.Origin, Object: subscriptionObject(sub),
			Message: "OLM v0 cannot resolve its namespace with the bundles' dependencies (" + sel.WithoutDependencies +
				"): judged at the bundle OLM v1 would pin, chosen without them; OLM v0 cannot install it"})
	}
	p.catalog(it)
	p.config(it)
	p.bundleRules(it)
	if len(sub.Name) > maxExtensionName {
		v.Reasons = append(v.Reasons, Reason{Code: CodeExtensionName, Origin: sub.Origin, Object: subscriptionObject(sub), Field: "metadata.name",
			Rule:    "applier/helm.go (the Helm release is named after the ClusterExtension)",
			Message: fmt.Sprintf("the ClusterExtension is named after the Subscription, and %q is %d characters: operator-controller's Helm applier names its release after it, and Helm allows %d", sub.Name, len(sub.Name), maxExtensionName)})
	}
	return it
}

// subscriptionObject names a Subscription.
func subscriptionObject(sub *inputs.Subscription) string {
	return "Subscription/" + sub.Namespace + "/" + sub.Name
}

// dependent refuses a Subscription OLM v0 generated for a dependency.
func dependent(sel *resolver.Selection) []Reason {
	sub := sel.Subscription
	by := sub.Annotations[generatedByAnnotation]
	if !sel.Generated && !sub.Generated && by == "" {
		return nil
	}
	required := "another operator's dependency"
	if len(sel.RequiredBy) > 0 {
		required = "the dependency of " + strings.Join(sel.RequiredBy, ", ")
	}
	field := "metadata.annotations." + generatedByAnnotation
	if by == "" {
		field = "generated"
	}
	return []Reason{{Code: CodeDependent, Origin: sub.Origin, Object: subscriptionObject(sub), Field: field, Rule: ruleDependency,
		Message: fmt.Sprintf("OLM v0 generated this Subscription for %s (bundle %s); OLM v1 resolves no dependency, and refuses the bundles that declare one: there is nothing for a ClusterExtension to take over until they are declared alone", required, sel.Bundle.Name)}}
}

// catalog names the ClusterCatalog the Subscription's ClusterExtension selects, and refuses a
// CatalogSource that cannot become one.
func (p *plan) catalog(it *item) {
	sub, v := it.sel.Subscription, &it.verdict
	if sub.Spec == nil {
		return
	}
	key := sub.Spec.CatalogSourceNamespace + "/" + sub.Spec.CatalogSource
	v.Catalog = key
	name, declared := p.catalogs[key]
	if !declared {
		name = sub.Spec.CatalogSource
		v.Notes = append(v.Notes, Reason{Code: NoteUndeclaredCatalog, Origin: sub.Origin, Object: subscriptionObject(sub), Field: "spec.source",
			Message: fmt.Sprintf("CatalogSource %s is not among the inputs: the ClusterExtension selects a ClusterCatalog named %s, which the render does not create or pin", key, name)})
	}
	v.ClusterCatalog, it.ext.catalog = name, name
	if pin := p.images[key]; declared && pin.err != nil {
		v.Reasons = append(v.Reasons, Reason{Code: CodeCatalogSource, Origin: sub.Origin, Object: subscriptionObject(sub), Field: "spec.source",
			Rule: "ClusterCatalog spec.source.image.ref", Message: pin.err.Error()})
	}
}

// config reads the Subscription's spec.config as a deploymentConfig, which needs its gate.
func (p *plan) config(it *item) {
	sub, v := it.sel.Subscription, &it.verdict
	m, typed, selector, err := deploymentConfig(sub)
	if err != nil {
		v.Reasons = append(v.Reasons, Reason{Code: CodeDeploymentConfig, Origin: sub.Origin, Object: subscriptionObject(sub), Field: "spec.config", Message: err.Error()})
		return
	}
	if selector {
		v.Notes = append(v.Notes, Reason{Code: NoteSelectorDropped, Origin: sub.Origin, Object: subscriptionObject(sub), Field: "spec.config.selector",
			Message: "v1's deploymentConfig has no selector (OLM v0 never used it): left out"})
	}
	if m == nil {
		return
	}
	it.ext.config, it.config = m, typed
	if !p.opts.Enabled(DeploymentConfig) {
		v.Reasons = append(v.Reasons, Reason{Code: CodeDeploymentConfig, Gate: DeploymentConfig, Origin: sub.Origin, Object: subscriptionObject(sub), Field: "spec.config",
			Rule:    ruleProvider + " (deploymentConfig is removed from the config schema without the gate)",
			Message: "customises the operator's Deployments: a ClusterExtension says so in spec.config.inline.deploymentConfig, which operator-controller takes with its DeploymentConfig gate (and the experimental CRD)"})
	}
}

// bundleRules reads the bundle, applies its rules and, when it renders, renders it.
func (p *plan) bundleRules(it *item) {
	v, b := &it.verdict, it.sel.Bundle
	rv1, err := readBundle(b)
	if err != nil {
		v.Reasons = append(v.Reasons, dependencies(b, nil, diag.Origin{})...)
		v.Reasons = append(v.Reasons, manifestsReason(b, err))
		return
	}
	it.bundle = rv1
	v.Reasons = append(v.Reasons, dependencies(b, rv1.csv, rv1.csvOrigin)...)
	blocking := bundleRules(rv1, p.opts.CertProvider)
	v.Reasons = append(v.Reasons, blocking...)
	modes := modeRules(rv1, it.scope, p.opts)
	v.Reasons = append(v.Reasons, modes...)
	if len(blocking) > 0 || it.scope.mode == "" || slices.ContainsFunc(modes, func(r Reason) bool { return r.Gate == "" }) {
		return
	}
	g := &generation{b: rv1, namespace: v.Namespace, targets: it.scope.targets(), provider: p.opts.CertProvider, config: it.config}
	objs, err := g.render()
	if err != nil {
		v.Reasons = append(v.Reasons, rv1.reason(CodeManifests, "", "rukpak/render/registryv1 Renderer.Render", "operator-controller's renderer fails on the bundle: %v", err))
		return
	}
	it.objects = objs
}

// manifestsReason says why the bundle's manifests cannot be read.
func manifestsReason(b *catalog.Bundle, err error) Reason {
	r := Reason{Code: CodeManifests, Origin: b.Origin, Object: fmt.Sprintf("bundle %q", b.Name), Rule: "rukpak/bundle/source/source.go"}
	if errors.Is(err, catalog.ErrNoManifests) {
		r.Message = "the catalog carries only the bundle's metadata (olm.csv.metadata), not its manifests: olm-render cannot check it against v1's rules nor predict what v1 creates; bind a catalog that has them (olm.bundle.object, or the bundle directory)"
		return r
	}
	r.Message = "cannot read the bundle's manifests: " + err.Error()
	return r
}

// nameCollisions refuses ClusterExtensions that would share a name: Subscriptions of the same
// name in several namespaces (a ClusterExtension is cluster-scoped).
func (p *plan) nameCollisions() {
	by := map[string][]*item{}
	for _, it := range p.items {
		if !it.verdict.Generated {
			by[it.ext.name] = append(by[it.ext.name], it)
		}
	}
	for _, name := range sortedKeys(by) {
		its := by[name]
		if len(its) < 2 {
			continue
		}
		var subs []string
		for _, it := range its {
			subs = append(subs, it.verdict.ID())
		}
		for _, it := range its {
			sub := it.sel.Subscription
			it.verdict.Reasons = append(it.verdict.Reasons, Reason{Code: CodeExtensionName, Origin: sub.Origin, Object: subscriptionObject(sub), Field: "metadata.name",
				Rule:    "ClusterExtension (cluster-scoped)",
				Message: fmt.Sprintf("a ClusterExtension is named after its Subscription and is cluster-scoped: Subscriptions %s would all be ClusterExtension %s; rename all but one", strings.Join(subs, ", "), name)})
		}
	}
}

// objectCollisions refuses Subscriptions whose installs would create the same objects: v0 lets
// the CSVs of one OperatorGroup share them, v1 gives every object a single owning
// ClusterExtension and fails the others (already exists ... cannot be managed). Only the
// Subscriptions v1 would take (with the gates they name) count. Each gets one reason per code,
// naming the objects and the Subscriptions it shares them with.
func (p *plan) objectCollisions() {
	owners := map[string][]*item{}
	objects := map[string]*unstructured.Unstructured{}
	for _, it := range p.items {
		if slices.ContainsFunc(it.verdict.Reasons, func(r Reason) bool { return r.Gate == "" }) {
			continue
		}
		for _, o := range it.objects {
			id := objectID(o)
			objects[id] = o
			if !slices.Contains(owners[id], it) {
				owners[id] = append(owners[id], it)
			}
		}
	}
	ids := slices.SortedFunc(maps.Keys(objects), func(a, b string) int { return emit.Compare(objects[a], objects[b]) })
	shared := map[*item]map[Code]*sharing{}
	for _, id := range ids {
		its := owners[id]
		if len(its) < 2 {
			continue
		}
		for _, it := range its {
			code := CodeOperatorGroupShared
			if slices.ContainsFunc(its, func(o *item) bool { return o.verdict.Namespace != it.verdict.Namespace }) {
				code = CodeObjectCollision
			}
			if shared[it] == nil {
				shared[it] = map[Code]*sharing{}
			}
			if shared[it][code] == nil {
				shared[it][code] = &sharing{}
			}
			shared[it][code].add(id, it, its)
		}
	}
	for _, it := range p.items {
		for _, code := range []Code{CodeObjectCollision, CodeOperatorGroupShared} {
			if s := shared[it][code]; s != nil {
				it.verdict.Reasons = append(it.verdict.Reasons, s.reason(code, it))
			}
		}
	}
}

// sharing is what one install shares with others: the objects, and the Subscriptions.
type sharing struct {
	objects, with []string
}

// add records an object an install shares with others.
func (s *sharing) add(id string, it *item, all []*item) {
	s.objects = append(s.objects, id)
	for _, o := range all {
		if w := o.verdict.ID() + " (" + o.verdict.Bundle + ")"; o != it && !slices.Contains(s.with, w) {
			s.with = append(s.with, w)
		}
	}
}

// reason is the reason an install shares objects with others.
func (s *sharing) reason(code Code, it *item) Reason {
	slices.Sort(s.with)
	objects := strings.Join(s.objects, ", ")
	if len(s.objects) > 3 {
		objects = fmt.Sprintf("%s and %d more", strings.Join(s.objects[:3], ", "), len(s.objects)-3)
	}
	sub := it.sel.Subscription
	r := Reason{Code: code, Origin: sub.Origin, Object: subscriptionObject(sub), Rule: "docs/concepts/single-owner-objects.md (one ClusterExtension owns each object)"}
	if code == CodeOperatorGroupShared {
		r.Message = fmt.Sprintf("%s creates %s, as %s in the same OperatorGroup does: OLM v0 lets them share what they both create, OLM v1 gives each object one owner and fails the other ClusterExtension (already exists ... cannot be managed by operator-controller)",
			it.verdict.Bundle, objects, strings.Join(s.with, ", "))
		if it.scope.group != nil {
			r.Origin, r.Object = it.scope.group.Origin, groupObject(it.scope.group)
		}
		return r
	}
	r.Message = fmt.Sprintf("%s creates %s, as %s in another namespace does: OLM v1 gives each object one owner and fails the other ClusterExtension (already exists ... cannot be managed by operator-controller)",
		it.verdict.Bundle, objects, strings.Join(s.with, ", "))
	return r
}

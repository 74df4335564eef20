package importer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/pager"
)

// ErrNoOLM is returned when the cluster serves no Subscriptions: OLM is not installed.
var ErrNoOLM = errors.New("the cluster serves no operators.coreos.com/v1alpha1 Subscriptions: is OLM installed?")

// reader lists objects in the namespaces of an import.
type reader struct {
	client dynamic.Interface
	// namespaces are the namespaces to read; nil reads every namespace.
	namespaces []string
}

// scopes returns the namespaces to list in: each asked for, or every namespace at once.
func (r *reader) scopes() []string {
	if len(r.namespaces) == 0 {
		return []string{metav1.NamespaceAll}
	}
	return r.namespaces
}

// listScoped lists the objects of a namespaced resource in the namespaces of the import.
func (r *reader) listScoped(ctx context.Context, gvr schema.GroupVersionResource, selector string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, ns := range r.scopes() {
		items, err := r.list(ctx, gvr, ns, selector)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

// list lists the objects of a resource in one namespace (all when ""), page by page.
func (r *reader) list(ctx context.Context, gvr schema.GroupVersionResource, ns, selector string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return r.client.Resource(gvr).Namespace(ns).List(ctx, opts)
	})
	err := p.EachListItem(ctx, metav1.ListOptions{LabelSelector: selector}, func(o runtime.Object) error {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("listing %s: unexpected item %T", gvr.Resource, o)
		}
		out = append(out, u)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s%s: %w", gvr.GroupResource(), inNamespace(ns), err)
	}
	return out, nil
}

// get reads one object; a missing object is (nil, nil).
func (r *reader) get(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	u, err := r.client.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s %s: %w", gvr.GroupResource(), qualified(ns, name), err)
	}
	return u, nil
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}

// qualified returns "namespace/name", or name for a cluster-scoped object.
func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// read reads everything an import needs.
func (r *reader) read(ctx context.Context) (*snapshot, error) {
	s := &snapshot{}
	steps := []func(context.Context, *snapshot) error{
		r.readSubscriptions, r.readGroups, r.readCatalogSources, r.readCSVs, r.readCopies,
		r.readInstallPlans, r.readConfigs, r.readCatalogPods, r.readNamespaces, r.readConditions,
	}
	for _, step := range steps {
		if err := step(ctx, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (r *reader) readSubscriptions(ctx context.Context, s *snapshot) error {
	items, err := r.listScoped(ctx, subscriptionsGVR, "")
	if apierrors.IsNotFound(err) {
		return ErrNoOLM
	}
	if err != nil {
		return err
	}
	s.subscriptions, err = typedAll(items, toSubscription)
	return err
}

func (r *reader) readGroups(ctx context.Context, s *snapshot) error {
	var err error
	s.groups, err = r.listScoped(ctx, operatorGroupsGVR, "")
	return err
}

// readCatalogSources lists the CatalogSources of the import's namespaces and reads those its
// Subscriptions name elsewhere.
func (r *reader) readCatalogSources(ctx context.Context, s *snapshot) error {
	items, err := r.listScoped(ctx, catalogSourcesGVR, "")
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, u := range items {
		have[qualified(u.GetNamespace(), u.GetName())] = true
	}
	for _, key := range s.sourceKeys() {
		if have[key] {
			continue
		}
		ns, name, _ := strings.Cut(key, "/")
		u, err := r.get(ctx, catalogSourcesGVR, ns, name)
		if err != nil {
			return err
		}
		if u != nil {
			items = append(items, u)
		}
	}
	s.catalogSources, err = typedAll(items, toCatalogSource)
	return err
}

// readCSVs lists the installed (not copied) CSVs.
func (r *reader) readCSVs(ctx context.Context, s *snapshot) error {
	items, err := r.listScoped(ctx, csvsGVR, "!"+copiedFromLabel)
	if err != nil {
		return err
	}
	s.csvs, err = typedAll(items, toCSV)
	return err
}

// readCopies finds the namespaces holding copies of the installed CSVs.
func (r *reader) readCopies(ctx context.Context, s *snapshot) error {
	origins := s.csvNamespaces()
	if len(origins) == 0 {
		return nil
	}
	items, err := r.list(ctx, csvsGVR, metav1.NamespaceAll, fmt.Sprintf("%s in (%s)", copiedFromLabel, strings.Join(origins, ",")))
	if err != nil {
		return err
	}
	for _, u := range items {
		if s.installedCSV(u.GetLabels()[copiedFromLabel], u.GetName()) != nil {
			s.copyNamespaces = append(s.copyNamespaces, u.GetNamespace())
		}
	}
	return nil
}

// readInstallPlans reads the InstallPlans Subscriptions point at.
func (r *reader) readInstallPlans(ctx context.Context, s *snapshot) error {
	for _, sub := range s.subscriptions {
		name := installPlanName(sub)
		if name == "" {
			continue
		}
		u, err := r.get(ctx, installPlansGVR, sub.Namespace, name)
		if err != nil || u == nil {
			return err
		}
		ip, err := toInstallPlan(u)
		if err != nil {
			return err
		}
		s.installPlans = append(s.installPlans, ip)
	}
	return nil
}

// readConfigs lists the OLMConfigs; a cluster whose OLM predates them serves none.
func (r *reader) readConfigs(ctx context.Context, s *snapshot) error {
	items, err := r.list(ctx, olmConfigsGVR, "", "")
	if apierrors.IsNotFound(err) {
		return nil
	}
	s.configs = items
	return err
}

// readCatalogPods lists the catalog pods of the CatalogSources given by a tag (none when the
// pods may not be listed).
func (r *reader) readCatalogPods(ctx context.Context, s *snapshot) error {
	s.catalogPods = map[string][]*corev1.Pod{}
	for _, cs := range s.catalogSources {
		if cs.Spec.Image == "" || digestOf(cs.Spec.Image) != "" {
			continue
		}
		items, err := r.list(ctx, podsGVR, cs.Namespace, catalogSourceLabel+"="+cs.Name)
		if apierrors.IsForbidden(err) {
			// The digest is then reported as unknown; the import goes on.
			continue
		}
		if err != nil {
			return err
		}
		pods, err := typedAll(items, toPod)
		if err != nil {
			return err
		}
		s.catalogPods[qualified(cs.Namespace, cs.Name)] = pods
	}
	return nil
}

// readNamespaces reads the Namespaces the import needs; one that no longer exists is skipped.
func (r *reader) readNamespaces(ctx context.Context, s *snapshot) error {
	for _, name := range s.namespaceNames() {
		u, err := r.get(ctx, namespacesGVR, "", name)
		if err != nil {
			return err
		}
		if u != nil {
			s.namespaces = append(s.namespaces, u)
		}
	}
	return nil
}

// sortedUnique sorts names and drops duplicates and empty names.
func sortedUnique(names []string) []string {
	names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "" })
	slices.Sort(names)
	return slices.Compact(names)
}

// readConditions lists the OperatorConditions; a cluster whose OLM predates them has none.
func (r *reader) readConditions(ctx context.Context, s *snapshot) error {
	items, err := r.listScoped(ctx, conditionsGVR, "")
	if apierrors.IsNotFound(err) {
		return nil
	}
	s.conditions = items
	return err
}

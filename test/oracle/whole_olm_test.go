package oracle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"
	"unsafe"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/api/client/clientset/versioned"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/api/client/informers/externalversions"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/operators/catalog"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/operators/olm"
	olmregistry "github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver/projection"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/lib/clients"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/lib/operatorclient"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/lib/operatorlister"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/lib/scoped"
	"github.com/operator-framework/operator-registry/pkg/api"
	"github.com/operator-framework/operator-registry/pkg/configmap"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/tools/reference"
)

// The namespaces of every case: OLM's own (where the CatalogSource lives, the global catalog
// namespace) and the operator's.
const (
	olmNamespace = "olm"
	opsNamespace = "ops"
)

// installInputs are what a user applies: the same objects the render reads.
type installInputs struct {
	Namespaces    []*corev1.Namespace
	OperatorGroup *operatorsv1.OperatorGroup
	CatalogSource *v1alpha1.CatalogSource
	Subscription  *v1alpha1.Subscription
}

// olmResult is the cluster after OLM installed the inputs.
type olmResult struct {
	// Objects are every object in the cluster, the inputs included.
	Objects []map[string]any
	// Failure says why OLM did not install the bundle (its step resolution or InstallPlan
	// failed, or a CSV did not succeed); "" when it did.
	Failure string
}

// installWithOLM installs the inputs with OLM v0.46.0's own code on a fake cluster and returns
// the objects in the cluster once every controller is idle. It runs, in order:
//
//   - the catalog operator's resolution and InstallPlan execution: resolver.NewOperatorStepResolver
//     on OLM's registry source provider (resolver.SourceProviderFromRegistryClientProvider) with
//     the operator-registry cache of the catalog, ResolveSteps, bundle unpacking as OLM's bundle
//     unpacker does it once the unpack Job has filled the ConfigMap (operator-registry's
//     ConfigMapWriter writes it from the bundle's files, configmap.BundleLoader reads it back, the
//     properties come from the bundle lookup, resolver.NewStepsFromBundle), then
//     catalog.Operator.ExecutePlan (its StepEnsurer) until every step is done. The catalog
//     operator is built with its fields set as its unit tests' NewFakeOperator sets them;
//   - the subscription status writes of the catalog operator's subscription sync (currentCSV,
//     installedCSV, installPlanRef), which the adoption controller reads;
//   - then the olm-operator: olm.NewOperator with the fake clients (its exported options, as
//     its unit tests do) and Run, for the rest of the install: OperatorGroup sync
//     (annotations, RBAC, namespace labels, providedAPIs), CSV sync (the install strategy,
//     certificates, webhooks, APIServices, per-API ClusterRoles) and copied CSVs. Only its
//     client factory is replaced (an unexported field; its unit tests do the same) so the
//     install strategy uses the fakes;
//   - the controller-runtime reconcilers of the olm-operator's manager (see reconcileAll).
//
// The cluster stands in for the API server, the apiextensions server, the deployment controller
// and the aggregator (cluster.emulate).
func installWithOLM(ctx context.Context, in installInputs, reg *registryCatalog, tmp string) (*olmResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := newCluster(discoveryResources())
	if err := c.apply(ctx, in); err != nil {
		return nil, err
	}
	lister, err := catalogListers(ctx, c)
	if err != nil {
		return nil, err
	}
	failure, err := runCatalogOperator(ctx, c, lister, in, reg, tmp)
	if err != nil {
		return nil, err
	}
	// The olm-operator starts once the InstallPlan is executed, so that its first sync sees
	// every object of the plan. Started earlier, its outcome depends on timing: for a global
	// OperatorGroup, ensureSingletonRBAC (olm/operatorgroup.go) lifts the CSV's Roles to
	// ClusterRoles only when the CSV syncs before its clusterPermissions' bindings are in the
	// informer caches, a race a real cluster has too; this order gives the settled answer.
	if err := startOLMOperator(ctx, c); err != nil {
		return nil, err
	}
	if failure == "" {
		if failure, err = settleAndReconcile(ctx, c); err != nil {
			return nil, err
		}
	} else {
		// Let the olm-operator sync what the plan did install, for a complete picture.
		if _, err := settle(ctx, c, 150*time.Millisecond); err != nil {
			return nil, err
		}
	}
	objs, err := c.objects()
	if err != nil {
		return nil, err
	}
	return &olmResult{Objects: objs, Failure: failure}, nil
}

// apply creates the inputs, as a user's kubectl apply does.
func (c *cluster) apply(ctx context.Context, in installInputs) error {
	for _, ns := range in.Namespaces {
		if _, err := c.kube.CoreV1().Namespaces().Create(ctx, ns.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating namespace %s: %w", ns.Name, err)
		}
	}
	if _, err := c.olm.OperatorsV1().OperatorGroups(in.OperatorGroup.Namespace).Create(ctx, in.OperatorGroup.DeepCopy(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the OperatorGroup: %w", err)
	}
	if _, err := c.olm.OperatorsV1alpha1().CatalogSources(in.CatalogSource.Namespace).Create(ctx, in.CatalogSource.DeepCopy(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the CatalogSource: %w", err)
	}
	if _, err := c.olm.OperatorsV1alpha1().Subscriptions(in.Subscription.Namespace).Create(ctx, in.Subscription.DeepCopy(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the Subscription: %w", err)
	}
	return nil
}

// quietLogger is a logrus logger that writes nothing.
func quietLogger() *logrus.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	l.SetLevel(logrus.PanicLevel)
	return l
}

// stubClientFactory is OLM's client factory on the fake clients (as in its unit tests'
// client_factory_stub_test.go): every client it makes is the cluster's.
type stubClientFactory struct {
	operatorClient   operatorclient.ClientInterface
	kubernetesClient versioned.Interface
	dynamicClient    dynamic.Interface
}

var _ clients.Factory = &stubClientFactory{}

// WithConfigTransformer implements clients.Factory.
func (f *stubClientFactory) WithConfigTransformer(clients.ConfigTransformer) clients.Factory {
	return f
}

// NewOperatorClient implements clients.Factory.
func (f *stubClientFactory) NewOperatorClient() (operatorclient.ClientInterface, error) {
	return f.operatorClient, nil
}

// NewKubernetesClient implements clients.Factory.
func (f *stubClientFactory) NewKubernetesClient() (versioned.Interface, error) {
	return f.kubernetesClient, nil
}

// NewDynamicClient implements clients.Factory.
func (f *stubClientFactory) NewDynamicClient() (dynamic.Interface, error) {
	return f.dynamicClient, nil
}

// setField sets a struct field by name, exported or not: OLM's operators keep their clients in
// unexported fields that its own unit tests set directly.
func setField(ptr any, name string, value any) {
	f := reflect.ValueOf(ptr).Elem().FieldByName(name)
	if !f.IsValid() {
		panic(fmt.Sprintf("%T has no field %s", ptr, name))
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(value))
}

// startOLMOperator starts OLM's olm-operator on the cluster.
func startOLMOperator(ctx context.Context, c *cluster) error {
	op, err := olm.NewOperator(ctx,
		olm.WithLogger(quietLogger()),
		olm.WithOperatorNamespace(olmNamespace),
		olm.WithWatchedNamespaces(metav1.NamespaceAll),
		olm.WithResyncPeriod(func() time.Duration { return time.Hour }),
		olm.WithOperatorClient(c.op),
		olm.WithExternalClient(c.olm),
		olm.WithMetadataClient(c.meta),
		olm.WithRestConfig(&rest.Config{}),
	)
	if err != nil {
		return fmt.Errorf("creating the olm-operator: %w", err)
	}
	setField(op, "clientFactory", clients.Factory(&stubClientFactory{operatorClient: c.op, kubernetesClient: c.olm, dynamicClient: c.dyn}))
	op.Run(ctx)
	select {
	case <-op.Ready():
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// catalogListers starts the informers the catalog operator reads through its lister.
func catalogListers(ctx context.Context, c *cluster) (operatorlister.OperatorLister, error) {
	lister := operatorlister.NewLister()
	ops := externalversions.NewSharedInformerFactory(c.olm, time.Hour)
	subs, csvs, ogs, cats, ips := ops.Operators().V1alpha1().Subscriptions(), ops.Operators().V1alpha1().ClusterServiceVersions(),
		ops.Operators().V1().OperatorGroups(), ops.Operators().V1alpha1().CatalogSources(), ops.Operators().V1alpha1().InstallPlans()
	lister.OperatorsV1alpha1().RegisterSubscriptionLister(metav1.NamespaceAll, subs.Lister())
	lister.OperatorsV1alpha1().RegisterClusterServiceVersionLister(metav1.NamespaceAll, csvs.Lister())
	lister.OperatorsV1().RegisterOperatorGroupLister(metav1.NamespaceAll, ogs.Lister())
	lister.OperatorsV1alpha1().RegisterCatalogSourceLister(metav1.NamespaceAll, cats.Lister())
	lister.OperatorsV1alpha1().RegisterInstallPlanLister(metav1.NamespaceAll, ips.Lister())
	kube := informers.NewSharedInformerFactory(c.kube, time.Hour)
	lister.CoreV1().RegisterConfigMapLister(metav1.NamespaceAll, kube.Core().V1().ConfigMaps().Lister())
	ops.Start(ctx.Done())
	kube.Start(ctx.Done())
	for t, ok := range ops.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("informer %v did not sync", t)
		}
	}
	for t, ok := range kube.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("informer %v did not sync", t)
		}
	}
	return lister, nil
}

// runCatalogOperator resolves the namespace with OLM's step resolver, unpacks the bundles and
// executes the InstallPlan. It returns why OLM did not install, or "".
func runCatalogOperator(ctx context.Context, c *cluster, lister operatorlister.OperatorLister, in installInputs, reg *registryCatalog, tmp string) (string, error) {
	log := quietLogger()
	if err := waitFor(ctx, func() bool {
		_, err := lister.OperatorsV1alpha1().SubscriptionLister().Subscriptions(in.Subscription.Namespace).Get(in.Subscription.Name)
		return err == nil
	}); err != nil {
		return "", fmt.Errorf("the Subscription never reached the catalog operator's cache: %w", err)
	}
	key := olmregistry.CatalogKey{Name: in.CatalogSource.Name, Namespace: in.CatalogSource.Namespace}
	sources := resolver.SourceProviderFromRegistryClientProvider(clientProvider{key: registryClient{reg.query}},
		lister.OperatorsV1alpha1().CatalogSourceLister(), log)
	steps, lookups, updated, err := resolver.NewOperatorStepResolver(lister, c.olm, olmNamespace,
		resolver.NewOperatorCacheProvider(lister, c.olm, sources, log), log).ResolveSteps(in.Subscription.Namespace)
	if err != nil {
		return "resolution failed: " + err.Error(), nil
	}
	for _, l := range lookups {
		unpacked, err := unpack(ctx, reg, l, in.Subscription.Namespace, tmp)
		if err != nil {
			return "", err
		}
		steps = append(steps, unpacked...)
	}
	plan, err := c.createInstallPlan(ctx, in.Subscription.Namespace, steps, lookups)
	if err != nil {
		return "", err
	}
	if failure, err := executePlan(ctx, c, lister, plan); err != nil || failure != "" {
		return failure, err
	}
	return "", c.updateSubscriptions(ctx, in.Subscription.Namespace, updated, plan)
}

// waitFor polls cond until it holds or ten seconds pass.
func waitFor(ctx context.Context, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// unpack returns the InstallPlan steps of a bundle given by image, as the catalog operator
// builds them once OLM's unpack Job (opm alpha bundle extract) has written the bundle's files
// to a ConfigMap: operator-registry's ConfigMapWriter writes the ConfigMap from the bundle's
// manifests and metadata directories, its BundleLoader reads it back (as OLM's
// ConfigMapUnpacker does), the bundle gets the lookup's properties, and
// resolver.NewStepsFromBundle turns it into steps (catalog.Operator.unpackBundles).
func unpack(ctx context.Context, reg *registryCatalog, lookup v1alpha1.BundleLookup, namespace, tmp string) ([]*v1alpha1.Step, error) {
	dir, err := bundleFiles(ctx, reg, lookup, tmp)
	if err != nil {
		return nil, err
	}
	kube := kubefake.NewSimpleClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bundle", Namespace: olmNamespace}})
	if err := configmap.NewConfigMapLoaderWithClient("bundle", olmNamespace, dir+string(filepath.Separator), true, kube).Populate(1 << 30); err != nil {
		return nil, fmt.Errorf("unpacking %s: %w", lookup.Identifier, err)
	}
	cm, err := kube.CoreV1().ConfigMaps(olmNamespace).Get(ctx, "bundle", metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("unpacking %s: %w", lookup.Identifier, err)
	}
	bundle, err := configmap.NewBundleLoaderWithLogger(logrus.NewEntry(quietLogger())).Load(cm)
	if err != nil {
		return nil, fmt.Errorf("unpacking %s: %w", lookup.Identifier, err)
	}
	if lookup.Properties != "" {
		if bundle.Properties, err = projection.PropertyListFromPropertiesAnnotation(lookup.Properties); err != nil {
			return nil, fmt.Errorf("unpacking %s: %w", lookup.Identifier, err)
		}
	}
	steps, err := resolver.NewStepsFromBundle(bundle, namespace, lookup.Replaces, lookup.CatalogSourceRef.Name, lookup.CatalogSourceRef.Namespace)
	if err != nil {
		return nil, fmt.Errorf("steps of %s: %w", lookup.Identifier, err)
	}
	return steps, nil
}

// bundleFiles returns the directory holding the files of a bundle image (manifests/ and
// metadata/): the bundle's own directory for a bundle tree, or, for a file-based catalog that
// inlines the manifests, a directory written from its olm.bundle.object values.
func bundleFiles(ctx context.Context, reg *registryCatalog, lookup v1alpha1.BundleLookup, tmp string) (string, error) {
	if dir, ok := reg.dirs[lookup.Identifier+"@"+lookup.Path]; ok {
		return dir, nil
	}
	b, err := reg.bundle(ctx, lookup.Identifier, lookup.Path)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(tmp, "bundle-")
	if err != nil {
		return "", fmt.Errorf("writing bundle %s: %w", lookup.Identifier, err)
	}
	if err := writeBundleFiles(dir, b); err != nil {
		return "", fmt.Errorf("writing bundle %s: %w", lookup.Identifier, err)
	}
	return dir, nil
}

// writeBundleFiles writes a bundle's objects as the files of a bundle image.
func writeBundleFiles(dir string, b *api.Bundle) error {
	for _, sub := range []string{"manifests", "metadata"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	if len(b.Object) == 0 {
		return errors.New("the catalog has no manifests for it (only olm.csv.metadata)")
	}
	for i, o := range b.Object {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(o)); err != nil {
			return fmt.Errorf("object %d: %w", i, err)
		}
		name := fmt.Sprintf("%03d-%s-%s.json", i, u.GetKind(), u.GetName())
		if err := os.WriteFile(filepath.Join(dir, "manifests", name), []byte(o), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// createInstallPlan creates the InstallPlan the catalog operator's createInstallPlan creates
// for the steps (phase Installing: the Subscriptions approve automatically).
func (c *cluster) createInstallPlan(ctx context.Context, namespace string, steps []*v1alpha1.Step, lookups []v1alpha1.BundleLookup) (*v1alpha1.InstallPlan, error) {
	var csvs []string
	cats := map[string]bool{}
	for _, s := range steps {
		if s.Resource.Kind == v1alpha1.ClusterServiceVersionKind {
			csvs = append(csvs, s.Resource.Name)
		}
		cats[s.Resource.CatalogSource] = true
	}
	ip := &v1alpha1.InstallPlan{ObjectMeta: metav1.ObjectMeta{GenerateName: "install-", Namespace: namespace},
		Spec: v1alpha1.InstallPlanSpec{ClusterServiceVersionNames: csvs, Approval: v1alpha1.ApprovalAutomatic, Approved: true, Generation: 1}}
	subs, err := c.olm.OperatorsV1alpha1().Subscriptions(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing subscriptions: %w", err)
	}
	for i := range subs.Items {
		sub := &subs.Items[i]
		ip.OwnerReferences = append(ip.OwnerReferences, metav1.OwnerReference{APIVersion: v1alpha1.SchemeGroupVersion.String(),
			Kind: v1alpha1.SubscriptionKind, Name: sub.Name, UID: sub.UID, BlockOwnerDeletion: new(false), Controller: new(false)})
	}
	res, err := c.olm.OperatorsV1alpha1().InstallPlans(namespace).Create(ctx, ip, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating the InstallPlan: %w", err)
	}
	res.Status = v1alpha1.InstallPlanStatus{Phase: v1alpha1.InstallPlanPhaseInstalling, Plan: steps, CatalogSources: slices.Sorted(mapsKeys(cats)), BundleLookups: lookups}
	for i := range res.Status.BundleLookups {
		res.Status.BundleLookups[i].Conditions = nil
	}
	return res, nil
}

// catalogOperator builds OLM's catalog operator with the fields ExecutePlan uses, set as its
// unit tests' NewFakeOperator sets them.
func catalogOperator(c *cluster, lister operatorlister.OperatorLister) *catalog.Operator {
	log := quietLogger()
	op := &catalog.Operator{}
	setField(op, "logger", log)
	setField(op, "opClient", c.op)
	setField(op, "client", versioned.Interface(c.olm))
	setField(op, "dynamicClient", dynamic.Interface(c.dyn))
	setField(op, "lister", lister)
	setField(op, "namespace", olmNamespace)
	setField(op, "recorder", record.EventRecorder(&record.FakeRecorder{}))
	setField(op, "clientAttenuator", scoped.NewClientAttenuator(log, &rest.Config{}, c.op))
	setField(op, "clientFactory", clients.Factory(&stubClientFactory{operatorClient: c.op, kubernetesClient: c.olm, dynamicClient: c.dyn}))
	return op
}

// executePlan runs catalog.Operator.ExecutePlan until every step is created or present, as the
// catalog operator's InstallPlan sync retries it. It returns why the plan failed, or "".
func executePlan(ctx context.Context, c *cluster, lister operatorlister.OperatorLister, plan *v1alpha1.InstallPlan) (string, error) {
	op := catalogOperator(c, lister)
	var last error
	for range 200 {
		last = op.ExecutePlan(plan)
		if last == nil && planDone(plan) {
			_, err := c.olm.OperatorsV1alpha1().InstallPlans(plan.Namespace).UpdateStatus(ctx, plan, metav1.UpdateOptions{})
			return "", err
		}
		if err := c.emulate(ctx); err != nil {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	if last == nil {
		return "InstallPlan did not complete: steps " + pendingSteps(plan), nil
	}
	return "InstallPlan failed: " + last.Error(), nil
}

// planDone reports whether every step of a plan is created or present.
func planDone(plan *v1alpha1.InstallPlan) bool {
	for _, s := range plan.Status.Plan {
		if s.Status != v1alpha1.StepStatusCreated && s.Status != v1alpha1.StepStatusPresent {
			return false
		}
	}
	return true
}

// pendingSteps names the steps of a plan that are not done.
func pendingSteps(plan *v1alpha1.InstallPlan) string {
	var out []string
	for _, s := range plan.Status.Plan {
		if s.Status != v1alpha1.StepStatusCreated && s.Status != v1alpha1.StepStatusPresent {
			out = append(out, fmt.Sprintf("%s/%s=%s", s.Resource.Kind, s.Resource.Name, s.Status))
		}
	}
	return fmt.Sprint(out)
}

// updateSubscriptions writes what the catalog operator's subscription sync writes once the plan
// is installed: currentCSV and the InstallPlan reference (syncResolvingNamespace's
// updateSubscriptionStatuses), then installedCSV and state (ensureSubscriptionCSVState); the
// Subscriptions the plan created get their startingCSV as currentCSV.
func (c *cluster) updateSubscriptions(ctx context.Context, namespace string, updated []*v1alpha1.Subscription, plan *v1alpha1.InstallPlan) error {
	current := map[string]string{}
	for _, s := range updated {
		current[s.Name] = s.Status.CurrentCSV
	}
	ref, err := reference.GetReference(wholeScheme, plan)
	if err != nil {
		return fmt.Errorf("referencing the InstallPlan: %w", err)
	}
	subs, err := c.olm.OperatorsV1alpha1().Subscriptions(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing subscriptions: %w", err)
	}
	for i := range subs.Items {
		sub := &subs.Items[i]
		csv := current[sub.Name]
		if csv == "" && sub.Spec != nil {
			csv = sub.Spec.StartingCSV
		}
		sub.Status.CurrentCSV, sub.Status.InstalledCSV = csv, csv
		sub.Status.State = v1alpha1.SubscriptionStateAtLatest
		sub.Status.InstallPlanRef = ref
		sub.Status.Install = v1alpha1.NewInstallPlanReference(ref)
		sub.Status.InstallPlanGeneration = 1
		sub.Status.LastUpdated = metav1.Now()
		if _, err := c.olm.OperatorsV1alpha1().Subscriptions(namespace).UpdateStatus(ctx, sub, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("updating subscription %s: %w", sub.Name, err)
		}
	}
	return nil
}

// settle lets the controllers run, with the cluster's emulation, until no write happened for
// quiet and every CSV is Succeeded or Failed (or, for CSVs that stay Pending, until no write
// happened for four times quiet). It returns the phases of the CSVs that did not succeed.
func settle(ctx context.Context, c *cluster, quiet time.Duration) (string, error) {
	deadline := time.Now().Add(60 * time.Second)
	last, since := c.writes.Load(), time.Now()
	for time.Now().Before(deadline) {
		if err := c.emulate(ctx); err != nil {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if w := c.writes.Load(); w != last {
			last, since = w, time.Now()
			continue
		}
		idle := time.Since(since)
		failures, terminal, err := c.csvOutcome(ctx)
		if err != nil {
			return "", err
		}
		if (terminal && idle >= quiet) || idle >= 4*quiet {
			return failures, nil
		}
	}
	return "", errors.New("the controllers did not settle within 60s")
}

// csvOutcome reports the CSVs that are not Succeeded, and whether every CSV is Succeeded or
// Failed.
func (c *cluster) csvOutcome(ctx context.Context) (string, bool, error) {
	csvs, err := c.olm.OperatorsV1alpha1().ClusterServiceVersions("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", false, fmt.Errorf("listing CSVs: %w", err)
	}
	var out []string
	terminal := true
	for _, csv := range csvs.Items {
		if csv.IsCopied() {
			continue
		}
		switch csv.Status.Phase {
		case v1alpha1.CSVPhaseSucceeded:
			continue
		case v1alpha1.CSVPhaseFailed:
		default:
			terminal = false
		}
		out = append(out, fmt.Sprintf("CSV %s/%s %s (%s): %s", csv.Namespace, csv.Name, csv.Status.Phase, csv.Status.Reason, csv.Status.Message))
	}
	slices.Sort(out)
	if len(out) == 0 {
		return "", terminal, nil
	}
	return fmt.Sprint(out), terminal, nil
}

// discoveryResources are the API resources the fake API server's discovery serves: every kind
// of the olm-operator manager's scheme (Kubernetes, apiextensions/v1, apiregistration/v1 and
// OLM's APIs, as a cluster with OLM installed serves them: OLM checks a CSV's nativeAPIs
// against discovery), and the kinds OLM creates through the dynamic client (catalog operator
// supportedresources.go) that the scheme lacks.
func discoveryResources() []*metav1.APIResourceList {
	verbs := metav1.Verbs{"create", "get", "list", "update", "patch", "watch", "delete"}
	lists := map[schema.GroupVersion]*metav1.APIResourceList{}
	add := func(gv schema.GroupVersion, name, kind string, namespaced bool) {
		l := lists[gv]
		if l == nil {
			l = &metav1.APIResourceList{GroupVersion: gv.String()}
			lists[gv] = l
		}
		for _, r := range l.APIResources {
			if r.Kind == kind {
				return
			}
		}
		l.APIResources = append(l.APIResources, metav1.APIResource{Name: name, Kind: kind, Namespaced: namespaced, Verbs: verbs})
	}
	clusterScoped := map[schema.GroupKind]bool{
		{Group: operatorsv1.SchemeGroupVersion.Group, Kind: "Operator"}:  true,
		{Group: operatorsv1.SchemeGroupVersion.Group, Kind: "OLMConfig"}: true,
	}
	mapper := testrestmapper.TestOnlyStaticRESTMapper(wholeScheme)
	for gvk := range wholeScheme.AllKnownTypes() {
		if gvk.Group == metav1.GroupName || strings.HasSuffix(gvk.Kind, "List") || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		obj, err := wholeScheme.New(gvk)
		if err != nil {
			continue
		}
		if _, ok := obj.(metav1.Object); !ok {
			continue
		}
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			continue
		}
		namespaced := mapping.Scope.Name() == meta.RESTScopeNameNamespace && !clusterScoped[gvk.GroupKind()]
		add(gvk.GroupVersion(), mapping.Resource.Resource, gvk.Kind, namespaced)
	}
	for _, r := range []struct {
		gv, name, kind string
		namespaced     bool
	}{
		{"monitoring.coreos.com/v1", "prometheusrules", "PrometheusRule", true},
		{"monitoring.coreos.com/v1", "servicemonitors", "ServiceMonitor", true},
		{"autoscaling.k8s.io/v1", "verticalpodautoscalers", "VerticalPodAutoscaler", true},
		{"console.openshift.io/v1", "consoleyamlsamples", "ConsoleYAMLSample", false},
		{"console.openshift.io/v1", "consolequickstarts", "ConsoleQuickStart", false},
		{"console.openshift.io/v1", "consoleclidownloads", "ConsoleCLIDownload", false},
		{"console.openshift.io/v1", "consolelinks", "ConsoleLink", false},
		{"console.openshift.io/v1", "consoleplugins", "ConsolePlugin", false},
		// The community catalogs are OpenShift's, and CSVs name its APIs in spec.nativeAPIs
		// (kairos-operator: Route), which OLM checks against discovery; olm-render warns about
		// them instead (it cannot know the cluster).
		{"route.openshift.io/v1", "routes", "Route", true},
	} {
		gv, _ := schema.ParseGroupVersion(r.gv)
		add(gv, r.name, r.kind, r.namespaced)
	}
	out := slices.Collect(maps.Values(lists))
	slices.SortFunc(out, func(a, b *metav1.APIResourceList) int { return strings.Compare(a.GroupVersion, b.GroupVersion) })
	for _, l := range out {
		slices.SortFunc(l.APIResources, func(a, b metav1.APIResource) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

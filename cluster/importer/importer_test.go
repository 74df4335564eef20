package importer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/resolver/lock"
)

const digestA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

// obj decodes a YAML object.
func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// fakeCluster returns a dynamic client serving the objects.
func fakeCluster(t *testing.T, docs ...string) *dynamicfake.FakeDynamicClient {
	t.Helper()
	lists := map[schema.GroupVersionResource]string{}
	for _, gvr := range []schema.GroupVersionResource{namespacesGVR, podsGVR, subscriptionsGVR, catalogSourcesGVR, csvsGVR, installPlansGVR, operatorGroupsGVR, olmConfigsGVR, conditionsGVR} {
		lists[gvr] = listKind(gvr)
	}
	var objs []runtime.Object
	for _, d := range docs {
		objs = append(objs, obj(t, d))
	}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, objs...)
}

func listKind(gvr schema.GroupVersionResource) string {
	kinds := map[string]string{
		"namespaces": "Namespace", "pods": "Pod", "subscriptions": "Subscription", "catalogsources": "CatalogSource",
		"clusterserviceversions": "ClusterServiceVersion", "installplans": "InstallPlan", "operatorgroups": "OperatorGroup",
		"olmconfigs": "OLMConfig", "operatorconditions": "OperatorCondition",
	}
	return kinds[gvr.Resource] + "List"
}

// A cluster where OLM installed etcd in ops for the OperatorGroup targeting ops and team-a, from
// a catalog in olm whose pod runs digestA; a copy of the CSV sits in team-a.
var installed = []string{
	`{apiVersion: v1, kind: Namespace, metadata: {name: ops, uid: u1, resourceVersion: "7", creationTimestamp: "2024-01-01T00:00:00Z",
	  labels: {kubernetes.io/metadata.name: ops, olm.operatorgroup.uid/123: "", team: a},
	  annotations: {openshift.io/sa.scc.mcs: "s0:c1", kubectl.kubernetes.io/last-applied-configuration: "{}"}},
	  spec: {finalizers: [kubernetes]}, status: {phase: Active}}`,
	`{apiVersion: v1, kind: Namespace, metadata: {name: team-a, labels: {kubernetes.io/metadata.name: team-a}}}`,
	`{apiVersion: v1, kind: Namespace, metadata: {name: olm}}`,
	`{apiVersion: v1, kind: Namespace, metadata: {name: unrelated}}`,
	`{apiVersion: operators.coreos.com/v1, kind: OperatorGroup, metadata: {name: og, namespace: ops, uid: u2, generation: 3,
	  annotations: {olm.providedAPIs: EtcdCluster.v1beta2.etcd.database.coreos.com}},
	  spec: {targetNamespaces: [ops, team-a], upgradeStrategy: Default}, status: {namespaces: [ops, team-a]}}`,
	`{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: etcd, namespace: ops,
	  labels: {operators.coreos.com/etcd.ops: ""}, managedFields: [{manager: kubectl}]},
	  spec: {name: etcd, channel: singlenamespace-alpha, source: community, sourceNamespace: olm},
	  status: {installedCSV: etcdoperator.v0.9.2, currentCSV: etcdoperator.v0.9.2, state: AtLatestKnown}}`,
	`{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: etcdoperator.v0.9.2, namespace: ops},
	  spec: {version: 0.9.2}, status: {phase: Succeeded}}`,
	`{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: etcdoperator.v0.9.2, namespace: team-a,
	  labels: {olm.copiedFrom: ops}}, spec: {version: 0.9.2}, status: {phase: Succeeded}}`,
	`{apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: community, namespace: olm},
	  spec: {sourceType: grpc, image: "quay.io/example/index:v1"}, status: {connectionState: {lastObservedState: READY}}}`,
	`{apiVersion: v1, kind: Pod, metadata: {name: community-x1, namespace: olm, labels: {olm.catalogSource: community}},
	  spec: {containers: [{name: registry-server, image: "quay.io/example/index:v1"}]},
	  status: {phase: Running, containerStatuses: [{name: registry-server, image: "quay.io/example/index:v1",
	  imageID: "quay.io/example/index@` + digestA + `"}]}}`,
}

func TestReadCleansAndPins(t *testing.T) {
	res, err := Read(context.Background(), fakeCluster(t, installed...), Options{Namespaces: []string{"ops"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{apiVersion: v1, kind: Namespace, metadata: {name: olm}}`,
		`{apiVersion: v1, kind: Namespace, metadata: {name: ops, labels: {team: a}}}`,
		`{apiVersion: v1, kind: Namespace, metadata: {name: team-a}}`,
		`{apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: community, namespace: olm},
		  spec: {sourceType: grpc, image: "quay.io/example/index:v1"}}`,
		`{apiVersion: operators.coreos.com/v1, kind: OperatorGroup, metadata: {name: og, namespace: ops}, spec: {targetNamespaces: [ops, team-a]}}`,
		`{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: etcd, namespace: ops},
		  spec: {name: etcd, channel: singlenamespace-alpha, source: community, sourceNamespace: olm}}`,
	}
	var got, wantObjs []map[string]any
	for _, o := range res.Objects {
		got = append(got, o.Object)
	}
	for _, d := range want {
		wantObjs = append(wantObjs, obj(t, d).Object)
	}
	if diff := cmp.Diff(wantObjs, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	wantLock := &lock.Lock{APIVersion: lock.APIVersion, Kind: lock.Kind,
		Catalogs: []lock.CatalogPin{{Namespace: "olm", Name: "community", Image: "quay.io/example/index:v1", Digest: digestA}},
		Namespaces: []lock.Namespace{{Namespace: "ops", Subscriptions: []lock.Entry{{
			Subscription: "etcd", Package: "etcd", Channel: "singlenamespace-alpha", Bundle: "etcdoperator.v0.9.2", Version: "0.9.2",
			Intent:  lock.Intent{Package: "etcd", Channel: "singlenamespace-alpha", Source: "community", SourceNamespace: "olm"},
			Catalog: lock.CatalogRef{Namespace: "olm", Name: "community"},
		}}}}}
	if diff := cmp.Diff(wantLock, res.Lock); diff != "" {
		t.Errorf("lock (-want +got):\n%s", diff)
	}
	if len(res.Reports) != 0 {
		t.Errorf("reports on a cluster in a reproducible state: %v", res.Reports)
	}
}

func TestReadReports(t *testing.T) {
	sub := func(name, extra string) string {
		return `{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: ` + name + `, namespace: ops},
		  spec: {name: ` + name + `, source: community, sourceNamespace: olm` + extra + `}`
	}
	csv := func(name, status string) string {
		return `{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: ` + name + `, namespace: ops},
		  spec: {version: 1.0.0}, status: ` + status + `}`
	}
	source := `{apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: community, namespace: olm},
	  spec: {sourceType: grpc, image: "quay.io/example/index@` + digestA + `"}}`
	tagged := `{apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: community, namespace: olm}, spec: {sourceType: grpc, image: "quay.io/example/index:v1"}}`
	pod := func(name, digest string) string {
		return `{apiVersion: v1, kind: Pod, metadata: {name: ` + name + `, namespace: olm, labels: {olm.catalogSource: community}},
		  status: {phase: Running, containerStatuses: [{name: registry-server, imageID: "docker-pullable://quay.io/example/index@` + digest + `"}]}}`
	}
	tests := []struct {
		name       string
		docs       []string
		forbidPods bool
		want       []string // "Reason Kind ns/name", each with a fragment of its message
	}{{
		name: "an OperatorCondition with overrides",
		docs: []string{source, sub("a", "}, status: {installedCSV: a.v1}"), csv("a.v1", "{phase: Succeeded}"),
			`{apiVersion: operators.coreos.com/v2, kind: OperatorCondition, metadata: {name: a.v1, namespace: ops},
			  spec: {overrides: [{type: Upgradeable, status: "True", reason: approved, message: by an admin}]}}`},
		want: []string{"ConditionOverrides OperatorCondition ops/a.v1: spec.overrides (Upgradeable) are not imported"},
	}, {
		name: "failed CSV",
		docs: []string{source, sub("a", "}, status: {installedCSV: a.v1}"), csv("a.v1", "{phase: Failed, reason: InstallComponentFailed, message: boom}")},
		want: []string{"CSVFailed ClusterServiceVersion ops/a.v1: phase Failed (InstallComponentFailed: boom)"},
	}, {
		name: "replacing CSV",
		docs: []string{source, sub("a", "}, status: {installedCSV: a.v2, currentCSV: a.v2}"), csv("a.v1", "{phase: Replacing}"),
			`{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: a.v2, namespace: ops}, spec: {replaces: a.v1}, status: {phase: Succeeded}}`},
		want: []string{"CSVReplacing ClusterServiceVersion ops/a.v1: phase Replacing: an upgrade to a.v2 is under way"},
	}, {
		name: "CSV without Subscription",
		docs: []string{source, csv("orphan.v1", "{phase: Succeeded}")},
		want: []string{"NoSubscription ClusterServiceVersion ops/orphan.v1: installed without a Subscription"},
	}, {
		name: "pending manual InstallPlan",
		docs: []string{source, csv("a.v1", "{phase: Succeeded}"),
			sub("a", ", installPlanApproval: Manual}, status: {installedCSV: a.v1, currentCSV: a.v2, state: UpgradePending, installPlanRef: {name: install-x, namespace: ops}}"),
			`{apiVersion: operators.coreos.com/v1alpha1, kind: InstallPlan, metadata: {name: install-x, namespace: ops},
			  spec: {approval: Manual, approved: false, clusterServiceVersionNames: [a.v2]}, status: {phase: RequiresApproval}}`},
		want: []string{"PendingApproval Subscription ops/a: InstallPlan ops/install-x waits for approval to install a.v2: the lock keeps a.v1; to accept it, run `olm-render upgrade ops/a`"},
	}, {
		name: "configMap CatalogSource",
		docs: []string{sub("a", "}, status: {installedCSV: a.v1}"), csv("a.v1", "{phase: Succeeded}"),
			`{apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: community, namespace: olm}, spec: {sourceType: configmap, configMap: legacy}}`},
		want: []string{"NoImage CatalogSource olm/community: has no spec.image (sourceType configmap, configMap legacy)"},
	}, {
		name: "tagged image without a running pod",
		docs: []string{sub("a", "}, status: {installedCSV: a.v1}"), csv("a.v1", "{phase: Succeeded}"),
			`{apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: community, namespace: olm}, spec: {sourceType: grpc, image: "quay.io/example/index:v1"}}`},
		want: []string{"NoCatalogDigest CatalogSource olm/community: no running catalog pod (label olm.catalogSource=community) that the import may list"},
	}, {
		name: "catalog pods running two digests",
		docs: []string{sub("a", "}, status: {installedCSV: a.v1}"), csv("a.v1", "{phase: Succeeded}"), tagged,
			pod("p1", digestA), pod("p2", "sha256:"+strings.Repeat("b", 64))},
		want: []string{"NoCatalogDigest CatalogSource olm/community: its catalog pods run different digests of quay.io/example/index:v1"},
	}, {
		name:       "catalog pods forbidden",
		docs:       []string{sub("a", "}, status: {installedCSV: a.v1}"), csv("a.v1", "{phase: Succeeded}"), tagged, pod("p1", digestA)},
		forbidPods: true,
		want:       []string{"NoCatalogDigest CatalogSource olm/community: no running catalog pod"},
	}, {
		name: "nothing installed, missing CatalogSource",
		docs: []string{sub("a", "}, status: {state: UpgradeFailed}")},
		want: []string{
			"MissingCatalogSource Subscription ops/a: its CatalogSource olm/community does not exist",
			`NotInstalled Subscription ops/a: nothing is installed (state "UpgradeFailed")`,
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCluster(t, tc.docs...)
			if tc.forbidPods {
				c.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(podsGVR.GroupResource(), "", errors.New("no"))
				})
			}
			res, err := Read(context.Background(), c, Options{Namespaces: []string{"ops"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Reports) != len(tc.want) {
				t.Fatalf("got %d reports, want %d:\n%s", len(res.Reports), len(tc.want), reportLines(res.Reports))
			}
			for i, r := range res.Reports {
				if got := string(r.Reason) + " " + r.String(); !strings.HasPrefix(got, tc.want[i]) {
					t.Errorf("report %d:\n got %s\nwant %s...", i, got, tc.want[i])
				}
			}
		})
	}
}

func reportLines(rs []Report) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(string(r.Reason) + " " + r.String() + "\n")
	}
	return b.String()
}

func TestReadWithoutOLM(t *testing.T) {
	c := fakeCluster(t)
	c.PrependReactor("list", "subscriptions", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(subscriptionsGVR.GroupResource(), "")
	})
	_, err := Read(context.Background(), c, Options{})
	if !errors.Is(err, ErrNoOLM) {
		t.Fatalf("got %v, want ErrNoOLM", err)
	}
}

func TestFiles(t *testing.T) {
	objs := []*unstructured.Unstructured{
		obj(t, `{apiVersion: v1, kind: Namespace, metadata: {name: ops}}`),
		obj(t, `{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: z, namespace: ops}}`),
		obj(t, `{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: a, namespace: ops}}`),
		obj(t, `{apiVersion: operators.coreos.com/v1, kind: OLMConfig, metadata: {name: cluster}}`),
	}
	files, err := Files(objs, &lock.Lock{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	want := []string{"namespaces.yaml", "olm-render.lock.yaml", "olmconfigs.yaml", "ops/subscriptions.yaml"}
	if diff := cmp.Diff(want, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if s := string(files["ops/subscriptions.yaml"]); strings.Index(s, "name: a") > strings.Index(s, "name: z") {
		t.Errorf("objects of a file are not sorted by name:\n%s", s)
	}
}

func TestCheckPinned(t *testing.T) {
	locked := func(bundles ...string) *lock.Lock {
		l := &lock.Lock{Namespaces: []lock.Namespace{{Namespace: "ops"}}}
		for i, b := range bundles {
			l.Namespaces[0].Subscriptions = append(l.Namespaces[0].Subscriptions, lock.Entry{
				Subscription: []string{"a", "b"}[i], Bundle: b, Catalog: lock.CatalogRef{Namespace: "olm", Name: "community"}})
		}
		return l
	}
	observed := locked("a.v1", "b.v1")
	if err := checkPinned(observed, locked("a.v1", "b.v1")); err != nil {
		t.Errorf("pinned bundles reported: %v", err)
	}
	err := checkPinned(observed, locked("a.v2"))
	if err == nil {
		t.Fatal("a moved and a missing Subscription not reported")
	}
	for _, want := range []string{
		"Subscription ops/a: OLM installed a.v1, but catalog olm/community resolves a.v2",
		"Subscription ops/b: OLM installed b.v1, but catalog olm/community resolves nothing",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

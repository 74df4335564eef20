package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olm-render/olm-render/render/gitops"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/test/fixture"
)

// argoApply applies a render as Argo CD does: wave by wave (argocd.argoproj.io/sync-wave), each
// object in the emitted order, server-side when its sync-options say ServerSideApply=true and
// otherwise client-side (kubectl's create with the last-applied-configuration annotation, or an
// update of an object an earlier case created); a wave's CRDs must be established before the
// next wave starts. It returns how many objects were applied server-side.
func argoApply(ctx context.Context, c client.Client, objs []*unstructured.Unstructured) (int, error) {
	waves := map[int][]*unstructured.Unstructured{}
	for _, u := range objs {
		w := 0
		if v, ok := u.GetAnnotations()[gitops.ArgoSyncWave]; ok {
			var err error
			if w, err = strconv.Atoi(v); err != nil {
				return 0, fmt.Errorf("%s %s: sync wave %q: %w", u.GetKind(), u.GetName(), v, err)
			}
		}
		waves[w] = append(waves[w], u)
	}
	order := make([]int, 0, len(waves))
	for w := range waves {
		order = append(order, w)
	}
	slices.Sort(order)
	serverSide := 0
	for _, w := range order {
		for _, u := range waves[w] {
			ssa := strings.Contains(u.GetAnnotations()[gitops.ArgoSyncOptions], "ServerSideApply=true")
			if ssa {
				serverSide++
			}
			if err := applyOne(ctx, c, u.DeepCopy(), ssa); err != nil {
				return serverSide, fmt.Errorf("wave %d: %s %s/%s: %w", w, u.GetKind(), u.GetNamespace(), u.GetName(), err)
			}
		}
		if err := waitEstablished(ctx, c, waves[w]); err != nil {
			return serverSide, err
		}
	}
	return serverSide, nil
}

// applyOne applies one object server-side, or client-side as kubectl does.
func applyOne(ctx context.Context, c client.Client, u *unstructured.Unstructured, serverSide bool) error {
	if serverSide {
		return c.Patch(ctx, u, client.Apply, client.FieldOwner("argocd-controller"), client.ForceOwnership)
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a["kubectl.kubernetes.io/last-applied-configuration"] = string(data)
	u.SetAnnotations(a)
	err = c.Create(ctx, u, client.FieldOwner("kubectl-client-side-apply"))
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(u.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(u), live); err != nil {
		return err
	}
	u.SetResourceVersion(live.GetResourceVersion())
	return c.Update(ctx, u, client.FieldOwner("kubectl-client-side-apply"))
}

// waitEstablished waits for the CRDs among objs to be established, as a sync wave waits for the
// health of the one before.
func waitEstablished(ctx context.Context, c client.Client, objs []*unstructured.Unstructured) error {
	for _, u := range objs {
		if u.GetKind() != "CustomResourceDefinition" {
			continue
		}
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			live := &unstructured.Unstructured{}
			live.SetGroupVersionKind(u.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(u), live); err != nil {
				return false, err
			}
			conditions, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
			for _, cond := range conditions {
				m, _ := cond.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s not established: %w", u.GetName(), err)
		}
	}
	return nil
}

// TestArgoCDApply renders the latest bundle of every operator in every install mode it supports
// --for argocd and applies it as Argo CD does, mostly client-side: nothing fails, the objects too
// large for client-side apply (the OLM CRDs, redis-operator's CSV) go server-side because the
// render marks them, and a render for kubectl marks nothing and warns about exactly those.
func TestArgoCDApply(t *testing.T) {
	needServer(t)
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	applyFixture(t, connect(t), "testdata/crds/monitoring.yaml")
	applyFixture(t, connect(t), "testdata/crds/cert-manager.yaml")
	abs := operatorsCatalog(t)
	nfd, err := filepath.Abs(nfdCatalog)
	if err != nil {
		t.Fatal(err)
	}
	var cases, objects, serverSide int
	for _, tc := range installModeCasesOf(t) {
		t.Run(tc.Name(), func(t *testing.T) {
			dir := t.TempDir()
			fixture.WriteInputs(t, dir, tc, fixture.CatalogSource("operators", fixture.Rel(t, dir, abs), ""),
				fixture.CatalogSource("nfd", fixture.Rel(t, dir, nfd), ""))
			set, err := inputs.Load([]string{dir}, fixture.SystemOptions(t))
			if err != nil {
				t.Fatal(err)
			}
			req := pipeline.Request{}
			req.Render.IncludeOLMCRDs = true
			req.Render.Engine = gitops.ArgoCD
			out, err := pipeline.RunSet(context.Background(), set, req)
			if err != nil {
				if fixture.ExpectUnresolvable[tc.Package] && strings.Contains(err.Error(), "ConstraintsNotSatisfiable") {
					t.Skipf("does not resolve against this corpus, as expected: %v", err)
				}
				t.Fatal(err)
			}
			n, err := argoApply(context.Background(), c, out.Objects)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Error("nothing applied server-side: the OLM CRDs are too large for client-side apply and must be marked")
			}
			checkKubectlWarnings(t, set, out.Objects)
			cases++
			objects += len(out.Objects)
			serverSide += n
		})
	}
	t.Logf("applied as Argo CD: %d cases, %d objects, %d of them server-side", cases, objects, serverSide)
}

// checkKubectlWarnings renders the same inputs for kubectl: no object is marked, and the objects
// the Argo CD render sent server-side are exactly those warned about.
func checkKubectlWarnings(t *testing.T, set *inputs.Set, argo []*unstructured.Unstructured) {
	t.Helper()
	req := pipeline.Request{}
	req.Render.IncludeOLMCRDs = true
	out, err := pipeline.RunSet(context.Background(), set, req)
	if err != nil {
		t.Fatal(err)
	}
	var marked, warned []string
	for _, u := range argo {
		if strings.Contains(u.GetAnnotations()[gitops.ArgoSyncOptions], "ServerSideApply=true") {
			marked = append(marked, gitops.ObjectName(u))
		}
	}
	for _, w := range out.Warnings {
		if strings.Contains(w.Message, "bytes of annotations after a client-side apply") {
			warned = append(warned, w.Object)
		}
	}
	for _, u := range out.Objects {
		if _, ok := u.GetAnnotations()[gitops.ArgoSyncOptions]; ok {
			t.Errorf("%s %s carries an Argo CD annotation in a kubectl render", u.GetKind(), u.GetName())
		}
	}
	slices.Sort(marked)
	slices.Sort(warned)
	if !slices.Equal(marked, warned) {
		t.Errorf("marked for server-side apply %v, warned about %v", marked, warned)
	}
}

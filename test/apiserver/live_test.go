package apiserver

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olm-render/olm-render/diff"
)

// TestDiffLive: right after an apply, the live diff shows no drift; after a test edits a live
// Deployment, it shows that drift, object by object, in diff's formats.
func TestDiffLive(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	cluster := connect(t)
	objs := render(t, "../../examples/quickstart/input")
	if _, err := cluster.Apply(ctx, objs); err != nil {
		t.Fatal(err)
	}
	drift, err := cluster.Diff(ctx, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(drift.Merged) != 0 {
		t.Fatalf("drift right after an apply: %d objects", len(drift.Merged))
	}
	if drift.Unchanged != len(objs) {
		t.Errorf("unchanged %d, want %d", drift.Unchanged, len(objs))
	}

	// Someone scales the operator by hand.
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dep := &appsv1.Deployment{}
	key := types.NamespacedName{Namespace: "operators", Name: "widget-operator"}
	if err := c.Get(ctx, key, dep); err != nil {
		t.Fatal(err)
	}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":3}}`))
	if err := c.Patch(ctx, dep, patch, client.FieldOwner("kubectl-edit")); err != nil {
		t.Fatal(err)
	}

	drift, err = cluster.Diff(ctx, objs)
	if err != nil {
		t.Fatal(err)
	}
	report, err := diff.Compare(drift.Before(), drift.After(), diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Changes) != 1 || report.Changes[0].Key.Kind != "Deployment" || report.Changes[0].Action != diff.Modified {
		var b strings.Builder
		_ = report.WriteText(&b)
		t.Fatalf("want one modified Deployment, got:\n%s", b.String())
	}
	if d := report.Changes[0].Diff; !strings.Contains(d, "-  replicas: 3") || !strings.Contains(d, "+  replicas: 1") {
		t.Errorf("the diff does not show the replicas drift:\n%s", d)
	}
}

// TestDiffLiveCommand runs `olm-render diff --live` as a user would, with a kubeconfig: exit 0
// right after an apply, exit 1 with the drift shown after a live edit.
func TestDiffLiveCommand(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "olm-render")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/olm-render")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building olm-render: %v\n%s", err, out)
	}
	input := "../../examples/quickstart/input"
	objs := render(t, input)
	cluster := connect(t)
	if _, err := cluster.Apply(ctx, objs); err != nil {
		t.Fatal(err)
	}
	diffLive := func() (int, string) {
		cmd := exec.Command(bin, "diff", "--live", "--kubeconfig", kubeconfig, "--exit-code", "--include-olm-crds", input)
		out, err := cmd.CombinedOutput()
		var exitErr *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &exitErr):
			return exitErr.ExitCode(), string(out)
		}
		t.Fatal(err)
		return 0, ""
	}
	if code, out := diffLive(); code != 0 {
		t.Fatalf("diff --live right after an apply: exit %d\n%s", code, out)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dep := &appsv1.Deployment{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "operators", Name: "widget-operator"}, dep); err != nil {
		t.Fatal(err)
	}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":5}}`))
	if err := c.Patch(ctx, dep, patch, client.FieldOwner("kubectl-scale")); err != nil {
		t.Fatal(err)
	}
	code, out := diffLive()
	if code != 1 || !strings.Contains(out, "Deployment") || !strings.Contains(out, "replicas: 5") {
		t.Fatalf("diff --live after a live edit: exit %d, want 1 and the Deployment drift\n%s", code, out)
	}
}

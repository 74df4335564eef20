package approve

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/resolver/contract"
)

// syncBuffer is a log the controller writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// eventually fails the test unless cond holds within 10 seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestController: the controller approves what the contracts admit as it starts, and reacts to
// a change: a contract appearing in team-c approves the plan waiting there.
func TestController(t *testing.T) {
	f := newFakeCluster(t, clusterObjects(t)...)
	log := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- NewController(f.clients, Options{Log: log}).Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	eventually(t, "team-a/install-a approved", func() bool { return f.plan(t, "team-a", "install-a").Spec.Approved })
	eventually(t, "the health of team-b written", func() bool {
		return f.configMap(t, "team-b", contract.ConfigMapName).Annotations[contract.HealthAnnotation] == "Degraded"
	})
	eventually(t, "the held plans' Events posted", func() bool { return len(f.events(t)) == 4 })
	if f.plan(t, "team-c", "install-c").Spec.Approved {
		t.Fatal("team-c/install-c approved without a contract")
	}

	// The contract of team-c arrives: its plan is approved.
	if _, err := f.kube.CoreV1().ConfigMaps("team-c").Create(ctx, contractMap(t, "team-c", widget), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "team-c/install-c approved once its contract arrived", func() bool { return f.plan(t, "team-c", "install-c").Spec.Approved })
	eventually(t, "the approval of team-c/install-c posted", func() bool { return len(f.events(t)) == 5 })
	want := []string{
		"team-a/install-a Normal InstallPlanApproved",
		"team-b/install-b Warning InstallPlanHeld",
		"team-c/install-c Normal InstallPlanApproved",
		"team-c/install-c Warning InstallPlanHeld",
		"team-d/install-d2 Warning InstallPlanHeld",
	}
	if diff := cmp.Diff(want, f.events(t)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// Reconciling again (the controller's own patches bring each namespace back) posts nothing
	// twice.
	time.Sleep(200 * time.Millisecond)
	if n := len(f.events(t)); n != 5 {
		t.Errorf("%d events, want 5: an Event posted twice", n)
	}
	for _, line := range []string{"watching InstallPlans in every namespace", "approved InstallPlan team-c/install-c", "namespace team-c: Progressing"} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log does not say %q:\n%s", line, log.String())
		}
	}
}

// TestControllerDryRun: a controller in a dry run logs what it would approve and hold, and
// writes nothing, even as a contract arrives.
func TestControllerDryRun(t *testing.T) {
	f := newFakeCluster(t, clusterObjects(t)...)
	log := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- NewController(f.clients, Options{Log: log, DryRun: true}).Run(ctx) }()
	eventually(t, "the plan it would approve logged", func() bool {
		return strings.Contains(log.String(), "dry run: would approve InstallPlan team-a/install-a")
	})
	cm := contractMap(t, "team-c", widget)
	if _, err := f.kube.CoreV1().ConfigMaps("team-c").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "team-c's plan it would approve logged", func() bool {
		return strings.Contains(log.String(), "dry run: would approve InstallPlan team-c/install-c")
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The test's own create is the only write.
	if diff := cmp.Diff([]string{"create configmaps team-c"}, f.writes()); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	for _, line := range []string{
		"watching InstallPlans in every namespace (dry run: approving nothing, posting no Event, writing no health)",
		"dry run: would hold InstallPlan team-b/install-b",
		"dry run: namespace team-d: Healthy: ",
	} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log does not say %q:\n%s", line, log.String())
		}
	}
}

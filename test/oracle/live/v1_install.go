package live

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The resources of OLM v1's API.
var (
	ClusterCatalogs   = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clustercatalogs"}
	ClusterExtensions = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterextensions"}
)

// WaitCatalogsServing waits until catalogd serves every named ClusterCatalog: Serving is True
// and Progressing is True and Succeeded for its generation. It fails with catalogd's last
// word on a catalog it does not serve in time.
func (c *Cluster) WaitCatalogsServing(ctx context.Context, names []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := c.V1Running(); err != nil {
			return err
		}
		var pending []string
		for _, name := range names {
			cc, err := c.Dynamic.Resource(ClusterCatalogs).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("reading ClusterCatalog %s: %w", name, err)
			}
			if !conditionTrue(cc, "Serving") || !settledCondition(cc, "Progressing", "Succeeded") {
				pending = append(pending, fmt.Sprintf("ClusterCatalog %s: %s", name, conditionsText(cc)))
			}
		}
		if len(pending) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("catalogd did not serve in %s: %s", timeout, strings.Join(pending, "; "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// V1Outcome is where operator-controller settled with some ClusterExtensions.
type V1Outcome struct {
	// Installed are the ClusterExtensions installed (Installed True, Progressing Succeeded),
	// each with the bundle installed, by name.
	Installed map[string]string
	// Refused are the ClusterExtensions operator-controller did not install, each with its
	// Progressing condition's reason and message, by name.
	Refused map[string]string
	// Took is how long operator-controller took to settle.
	Took time.Duration
}

// Failure says why operator-controller did not install everything, or "".
func (o V1Outcome) Failure() string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(o.Refused)) {
		out = append(out, fmt.Sprintf("ClusterExtension %s: %s", name, o.Refused[name]))
	}
	return strings.Join(out, "; ")
}

// refusedPolls is how many polls in a row a ClusterExtension must keep the same failure for
// operator-controller to count as settled on it: it retries with a backoff, saying the same.
const refusedPolls = 10

// SettleV1 waits until operator-controller is done with the named ClusterExtensions: each is
// installed (Installed True and Progressing True, Succeeded, for its generation) or refused
// (Progressing False, or Retrying with the same message for refusedPolls polls), and no object
// has changed for quietPolls polls. When timeout passes first, the ClusterExtensions not done
// are refused with what operator-controller last said; the error is for the harness's own
// failures (a controller exited, the API server failed).
func (c *Cluster) SettleV1(ctx context.Context, names []string, timeout time.Duration) (V1Outcome, error) {
	start := time.Now()
	deadline := start.Add(timeout)
	last, quiet := "", 0
	failing := map[string]int{} // how many polls in a row each said its last failure
	said := map[string]string{}
	for {
		if err := c.V1Running(); err != nil {
			return V1Outcome{}, err
		}
		out := V1Outcome{Installed: map[string]string{}, Refused: map[string]string{}}
		done := true
		for _, name := range names {
			ce, err := c.Dynamic.Resource(ClusterExtensions).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return V1Outcome{}, fmt.Errorf("reading ClusterExtension %s: %w", name, err)
			}
			installed, failure := extensionState(ce)
			switch {
			case installed != "":
				out.Installed[name] = installed
				delete(failing, name)
			case failure != "":
				if said[name] == failure {
					failing[name]++
				} else {
					failing[name], said[name] = 1, failure
				}
				out.Refused[name] = failure
				done = done && (failing[name] >= refusedPolls || strings.HasPrefix(failure, "False "))
			default:
				out.Refused[name] = "not settled: " + conditionsText(ce)
				done = false
			}
		}
		objs, err := c.list(ctx)
		if err != nil {
			return V1Outcome{}, err
		}
		if fp := c.fingerprint(objs); fp == last {
			quiet++
		} else {
			quiet, last = 0, fp
		}
		out.Took = time.Since(start)
		if (done && quiet >= quietPolls) || time.Now().After(deadline) {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return V1Outcome{}, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// extensionState says what a ClusterExtension came to: the bundle installed ("name version")
// once it is installed for its generation; or its failure, "STATUS REASON: MESSAGE" of its
// Progressing condition, when that condition says it is retrying or blocked.
func extensionState(ce *unstructured.Unstructured) (installed, failure string) {
	gen := ce.GetGeneration()
	prog := condition(ce, "Progressing")
	if prog == nil || observed(prog) != gen {
		return "", ""
	}
	if settledCondition(ce, "Progressing", "Succeeded") && conditionTrue(ce, "Installed") && observed(condition(ce, "Installed")) == gen {
		name, _, _ := unstructured.NestedString(ce.Object, "status", "install", "bundle", "name")
		version, _, _ := unstructured.NestedString(ce.Object, "status", "install", "bundle", "version")
		return name + " " + version, ""
	}
	if prog["reason"] == "Succeeded" {
		return "", ""
	}
	return "", fmt.Sprintf("%v %v: %v", prog["status"], prog["reason"], prog["message"])
}

// settledCondition reports whether an object's condition of type typ is True with reason,
// for the object's generation.
func settledCondition(o *unstructured.Unstructured, typ, reason string) bool {
	cond := condition(o, typ)
	return cond != nil && cond["status"] == "True" && cond["reason"] == reason && observed(cond) == o.GetGeneration()
}

// observed returns a condition's observedGeneration.
func observed(cond map[string]any) int64 {
	g, _ := cond["observedGeneration"].(int64)
	return g
}

// conditionsText writes an object's conditions as "Type=Status (Reason: Message)".
func conditionsText(o *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	if len(conds) == 0 {
		return "no conditions yet"
	}
	var out []string
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok {
			out = append(out, fmt.Sprintf("%v=%v (%v: %v)", m["type"], m["status"], m["reason"], m["message"]))
		}
	}
	return strings.Join(out, ", ")
}

package resolver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

// TestResolutionProblemsOrder: a failed resolution leads with the user's own mistake, in the
// field it is in and with the did-you-mean, then OLM's ResolutionFailed on the declared
// Subscriptions; the Subscription OLM generated for a dependency (read from the lock, never
// written by the user) is not blamed.
func TestResolutionProblemsOrder(t *testing.T) {
	cat := buildCatalog(nil, bnd("a.v1", "1.0.0", "a", "stable"), bnd("b.v1", "1.0.0", "b", "stable"))
	set := scenarioSet(map[string]*catalog.Catalog{"cat": cat}, nil,
		subSpec{name: "a", pkg: "a", channel: "stabel"}, subSpec{name: "b-stable-cat-olm", pkg: "b", channel: "stable"})
	set.Subscriptions[0].Origin = diag.Origin{File: "subscription.yaml"}
	set.Subscriptions[1].Origin = diag.Origin{File: "olm-render.lock.yaml"}
	set.Subscriptions[1].Generated = true
	_, err := Resolve(context.Background(), set, Options{})
	var re *ResolutionError
	if !errors.As(err, &re) {
		t.Fatalf("error %v", err)
	}
	ps := re.Problems()
	want := []string{
		`subscription.yaml: Subscription/ns/a: spec.channel: "stabel" does not exist: did you mean "stable"?`,
		"subscription.yaml: Subscription/ns/a: spec: ResolutionFailed (ConstraintsNotSatisfiable): ",
	}
	if len(ps) != len(want) {
		t.Fatalf("problems\n%v\nwant %d", ps, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(ps[i].Error(), w) {
			t.Errorf("problem %d\n%s\ndoes not start with\n%s", i, ps[i].Error(), w)
		}
	}
}

package contract

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// pkgOf builds a package with one channel from entries, each bundle versioned by its name's
// suffix after "op.v".
func pkgOf(entries ...catalog.ChannelEntry) (*catalog.Package, *catalog.Channel) {
	p := &catalog.Package{Name: "op"}
	ch := &catalog.Channel{Package: "op", Name: "stable", Entries: entries}
	for _, e := range entries {
		p.Bundles = append(p.Bundles, &catalog.Bundle{Package: "op", Name: e.Name, Version: semver.MustParse(e.Name[len("op.v"):])})
	}
	slices.SortFunc(p.Bundles, func(a, b *catalog.Bundle) int { return a.Version.Compare(b.Version) })
	p.Channels = []*catalog.Channel{ch}
	return p, ch
}

func TestStepsTo(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []catalog.ChannelEntry
		locked  string
		want    []string
	}{{
		name:    "replaces chain: every earlier bundle leads up to the lock, the head above it does not",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.0"}, {Name: "op.v1.2.0", Replaces: "op.v1.1.0"}, {Name: "op.v1.3.0", Replaces: "op.v1.2.0"}},
		locked:  "op.v1.2.0",
		want:    []string{"op.v1.0.0", "op.v1.1.0"},
	}, {
		name:    "skips and skipRange",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.0.1"}, {Name: "op.v1.1.0", Skips: []string{"op.v1.0.1"}}, {Name: "op.v2.0.0", SkipRange: ">=1.0.0 <2.0.0"}},
		locked:  "op.v2.0.0",
		want:    []string{"op.v1.0.0", "op.v1.0.1", "op.v1.1.0"},
	}, {
		name:    "a bundle off the path is not a step",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.0"}, {Name: "op.v1.1.1"}},
		locked:  "op.v1.1.0",
		want:    []string{"op.v1.0.0"},
	}, {
		name:    "an edge from a higher version never crosses the ceiling",
		entries: []catalog.ChannelEntry{{Name: "op.v2.0.0"}, {Name: "op.v1.0.0", Replaces: "op.v2.0.0"}},
		locked:  "op.v1.0.0",
		want:    []string{},
	}, {
		name:    "the first bundle has no steps",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.0"}},
		locked:  "op.v1.0.0",
		want:    []string{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p, ch := pkgOf(tc.entries...)
			got, err := StepsTo(p, ch, tc.locked)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("StepsTo(%s) = %v, want %v", tc.locked, got, tc.want)
			}
		})
	}
}

func TestStepsToBadRange(t *testing.T) {
	p, ch := pkgOf(catalog.ChannelEntry{Name: "op.v1.0.0", SkipRange: "not a range"})
	if _, err := StepsTo(p, ch, "op.v1.0.0"); err == nil {
		t.Fatal("no error for a skipRange that does not parse")
	}
}

func TestAllowed(t *testing.T) {
	n := Namespace{Namespace: "ops", Subscriptions: []Subscription{
		{Name: "b", Locked: "b.v2", Steps: []string{"b.v1"}},
		{Name: "a", Locked: "a.v1", Steps: []string{"b.v1"}},
	}}
	if got, want := n.Allowed(), []string{"a.v1", "b.v1", "b.v2"}; !slices.Equal(got, want) {
		t.Errorf("Allowed() = %v, want %v", got, want)
	}
}

func TestConfigMapRoundTrip(t *testing.T) {
	n := Namespace{Namespace: "ops", Subscriptions: []Subscription{{Name: "etcd", Package: "etcd", Channel: "alpha", Locked: "etcdoperator.v0.9.2", Steps: []string{"etcdoperator.v0.9.0"}}}}
	cm, err := ConfigMap(n)
	if err != nil {
		t.Fatal(err)
	}
	if cm.Name != ConfigMapName || cm.Namespace != "ops" || cm.Labels[Label] != "true" {
		t.Fatalf("ConfigMap %s/%s labels %v", cm.Namespace, cm.Name, cm.Labels)
	}
	got, err := FromConfigMap(cm)
	if err != nil {
		t.Fatal(err)
	}
	if ok, outside := got.Admits([]string{"etcdoperator.v0.9.0"}); !ok || len(outside) != 0 {
		t.Errorf("a step is not admitted: %v", outside)
	}
	if ok, outside := got.Admits([]string{"etcdoperator.v0.9.2", "etcdoperator.v0.9.4"}); ok || !slices.Equal(outside, []string{"etcdoperator.v0.9.4"}) {
		t.Errorf("a plan past the ceiling: admitted %v, outside %v", ok, outside)
	}
	if ok, _ := got.Admits(nil); ok {
		t.Error("an empty plan is admitted")
	}
	cm.Namespace = "other"
	if _, err := FromConfigMap(cm); err == nil {
		t.Error("a contract of another namespace is read")
	}
	cm.Namespace = "ops"
	cm.Data[Key] = "namespace: ops\nsubscriptions: [{name: a, locked: a.v1, extra: 1}]\n"
	if _, err := FromConfigMap(cm); err == nil {
		t.Error("an unknown field is read")
	}
}

// TestHeldStep: the step past the lock OLM will propose, when the channel offers one.
func TestHeldStep(t *testing.T) {
	chain := []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.0"}, {Name: "op.v1.2.0", Replaces: "op.v1.1.0"}}
	for _, tc := range []struct {
		name    string
		entries []catalog.ChannelEntry
		locked  string
		want    string
	}{
		{name: "below the head: the next entry", entries: chain, locked: "op.v1.0.0", want: "op.v1.1.0"},
		{name: "at the head: nothing", entries: chain, locked: "op.v1.2.0"},
		{name: "a skipRange head: OLM proposes the head", entries: append(chain[:2:2], catalog.ChannelEntry{Name: "op.v1.2.0", Replaces: "op.v1.1.0", SkipRange: "<1.2.0"}), locked: "op.v1.0.0", want: "op.v1.2.0"},
		{name: "a channel OLM cannot order: nothing", entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v2.0.0"}}, locked: "op.v1.0.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ch := pkgOf(tc.entries...)
			steps, err := StepsTo(p, ch, tc.locked)
			if err != nil {
				t.Fatal(err)
			}
			if got := heldStep(p, ch, Subscription{Locked: tc.locked, Steps: steps}); got != tc.want {
				t.Errorf("heldStep(%s) = %q, want %q", tc.locked, got, tc.want)
			}
		})
	}
}

// TestHeldRecordedNeverAdmitted: the held step is an annotation of the ConfigMap, outside
// contract.yaml, so the contract an approver reads never admits it.
func TestHeldRecordedNeverAdmitted(t *testing.T) {
	n := Namespace{Namespace: "ops", Subscriptions: []Subscription{
		{Name: "etcd", Package: "etcd", Channel: "alpha", Locked: "etcdoperator.v0.9.2", Steps: []string{"etcdoperator.v0.9.0"}, Held: "etcdoperator.v0.9.4"},
		{Name: "other", Package: "other", Channel: "stable", Locked: "other.v1.0.0"},
	}}
	cm, err := ConfigMap(n)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cm.Annotations[HeldAnnotation], `{"etcd":"etcdoperator.v0.9.4"}`; got != want {
		t.Errorf("annotation %s = %q, want %q", HeldAnnotation, got, want)
	}
	if strings.Contains(cm.Data[Key], "v0.9.4") {
		t.Errorf("%s names the held step:\n%s", Key, cm.Data[Key])
	}
	read, err := FromConfigMap(cm)
	if err != nil {
		t.Fatalf("FromConfigMap() of a ConfigMap with a held step: %v", err)
	}
	if ok, outside := read.Admits([]string{"etcdoperator.v0.9.4"}); ok || !slices.Equal(outside, []string{"etcdoperator.v0.9.4"}) {
		t.Errorf("the held step is admitted: %v, outside %v", ok, outside)
	}
	if read.Subscriptions[0].Held != "" {
		t.Errorf("FromConfigMap() reads the held step %q", read.Subscriptions[0].Held)
	}
	held, err := HeldOf(cm)
	if err != nil || !maps.Equal(held, map[string]string{"etcd": "etcdoperator.v0.9.4"}) {
		t.Errorf("HeldOf() = %v, %v", held, err)
	}
	cm.Annotations[HeldAnnotation] = "etcd: x"
	if _, err := HeldOf(cm); err == nil || !strings.Contains(err.Error(), HeldAnnotation) {
		t.Errorf("HeldOf() of a bad annotation: error %v", err)
	}
	none, err := ConfigMap(Namespace{Namespace: "ops", Subscriptions: n.Subscriptions[1:]})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := none.Annotations[HeldAnnotation]; ok {
		t.Errorf("a contract holding nothing has the annotation %s", HeldAnnotation)
	}
	if held, err := HeldOf(none); err != nil || len(held) != 0 {
		t.Errorf("HeldOf() of a contract holding nothing = %v, %v", held, err)
	}
}

package resolver

import (
	"context"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// TestExplain: every selection says why it was chosen, and the alternatives say why not.
func TestExplain(t *testing.T) {
	cat := buildCatalog(map[string]string{"a": "stable", "b": "stable"},
		bnd("a.v1", "1.0.0", "a", "stable"),
		bnd("a.v2", "2.0.0", "a", "stable", replaces("a.v1"), requires(g, v, k)),
		bnd("a.v3", "3.0.0", "a", "stable", replaces("a.v2"), requires(g, v, k)),
		bnd("b.v1", "1.0.0", "b", "stable", provides(g, v, k)),
	)
	tests := []struct {
		name string
		sub  subSpec
		opts Options
		want map[string]string // bundle → the start of its reason
		alt  string            // a substring of the first alternative's reason
	}{
		{name: "head", sub: subSpec{name: "a", pkg: "a"},
			want: map[string]string{"a.v3": "channel head: a.v3 heads channel stable (the package's default channel)", "b.v1": "dependency: a.v3 (for Subscription a) requires an operator providing an API"},
			alt:  "OLM prefers the channel head"},
		{name: "startingCSV", sub: subSpec{name: "a", pkg: "a", channel: "stable", start: "a.v1"},
			want: map[string]string{"a.v1": "startingCSV: the Subscription asks for a.v1"}, alt: "not the startingCSV"},
		{name: "upgrade", sub: subSpec{name: "a", pkg: "a", channel: "stable", installed: "a.v1"},
			want: map[string]string{"a.v2": "upgrade: a.v2 replaces the installed a.v1 (replaces)"}},
		{name: "locked", sub: subSpec{name: "a", pkg: "a", channel: "stable"},
			opts: Options{Installed: map[string]string{"ns/a": "a.v2"}, Pinned: map[string]bool{"ns/a": true}},
			want: map[string]string{"a.v2": "locked: a.v2 is the bundle the lock records"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := scenarioSet(map[string]*catalog.Catalog{"cat": cat}, nil, tt.sub)
			res, err := Resolve(context.Background(), set, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, sel := range res.Namespaces[0].Selections {
				want, ok := tt.want[sel.Bundle.Name]
				if !ok {
					continue
				}
				if !strings.HasPrefix(sel.Reason, want) {
					t.Errorf("%s: reason %q, want %q", sel.Bundle.Name, sel.Reason, want)
				}
				if tt.alt != "" && sel.Subscription.Name == "a" && (len(sel.Alternatives) == 0 || !strings.Contains(sel.Alternatives[0].Reason, tt.alt)) {
					t.Errorf("%s: alternatives %+v, want %q", sel.Bundle.Name, sel.Alternatives, tt.alt)
				}
				delete(tt.want, sel.Bundle.Name)
			}
			if len(tt.want) > 0 {
				t.Errorf("not selected: %v", tt.want)
			}
		})
	}
}

package resolver

import (
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// channelOf builds package "op" with one channel of the entries, each bundle versioned by its
// name's suffix after "op.v".
func channelOf(entries ...catalog.ChannelEntry) (*catalog.Package, *catalog.Channel) {
	p := &catalog.Package{Name: "op", DefaultChannel: "stable"}
	ch := &catalog.Channel{Package: "op", Name: "stable", Entries: entries}
	for _, e := range entries {
		p.Bundles = append(p.Bundles, &catalog.Bundle{Package: "op", Name: e.Name, Version: semver.MustParse(strings.TrimPrefix(e.Name, "op.v"))})
	}
	p.Channels = []*catalog.Channel{ch}
	return p, ch
}

// TestNextStep: the step OLM proposes from an installed bundle is the highest entry of the
// channel that upgrades it, never a skipped one.
func TestNextStep(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []catalog.ChannelEntry
		from    string
		want    string
		wantErr string
	}{{
		name:    "replaces: the entry that replaces the installed one",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.0"}, {Name: "op.v1.2.0", Replaces: "op.v1.1.0"}},
		from:    "op.v1.0.0",
		want:    "op.v1.1.0",
	}, {
		name:    "the channel head: nothing upgrades it",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.0"}},
		from:    "op.v1.1.0",
	}, {
		name:    "a skipRange on the head wins over the replaces edge below it",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.0"}, {Name: "op.v1.2.0", Replaces: "op.v1.1.0", SkipRange: "<1.2.0"}},
		from:    "op.v1.0.0",
		want:    "op.v1.2.0",
	}, {
		name:    "skips: the entry that skips the installed one",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.0.1", Replaces: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.0", Skips: []string{"op.v1.0.1"}}},
		from:    "op.v1.0.1",
		want:    "op.v1.1.0",
	}, {
		name:    "a skipped entry is never a step, even when it alone replaces the installed one",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v1.0.1", Replaces: "op.v1.0.0"}, {Name: "op.v1.1.0", Replaces: "op.v1.0.1", Skips: []string{"op.v1.0.1"}}},
		from:    "op.v1.0.0",
	}, {
		name:    "a bundle the package lacks proposes nothing",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}},
		from:    "op.v9.0.0",
	}, {
		name:    "a channel OLM cannot order",
		entries: []catalog.ChannelEntry{{Name: "op.v1.0.0"}, {Name: "op.v2.0.0"}},
		from:    "op.v1.0.0",
		wantErr: "the next step from op.v1.0.0: a unique replacement chain within a channel is required",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p, ch := channelOf(tc.entries...)
			got, err := NextStep(p, ch, tc.from)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("NextStep() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("NextStep(%s) = %q, %v; want %q", tc.from, got, err, tc.want)
			}
		})
	}
}

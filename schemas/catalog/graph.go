package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/schemas/diag"
)

// edge is one replaces or skips edge of a channel entry, and where it is written.
type edge struct {
	from, to string
	origin   diag.Origin
	field    string
}

// edges lists a channel's edges, each with the file and field that declare it (site).
func (ch *Channel) edges(p *Package) []edge {
	var out []edge
	for i, e := range ch.Entries {
		origin, prefix := ch.site(p, i)
		if e.Replaces != "" {
			out = append(out, edge{from: e.Name, to: e.Replaces, origin: origin, field: prefix + "replaces"})
		}
		for j, s := range e.Skips {
			out = append(out, edge{from: e.Name, to: s, origin: origin, field: fmt.Sprintf("%sskips[%d]", prefix, j)})
		}
	}
	return out
}

// site is where the edges of the channel's i-th entry are written, and the prefix of their
// fields: the channel's own entries (a file-based catalog, a catalog template), or the CSV of
// the entry's bundle (bundle trees and package manifests).
func (ch *Channel) site(p *Package, i int) (diag.Origin, string) {
	if !ch.EdgesInCSVs {
		return ch.Origin, fmt.Sprintf("entries[%d].", i)
	}
	if b := p.Bundle(ch.Entries[i].Name); b != nil {
		return b.Origin, "spec."
	}
	return ch.Origin, "spec."
}

// entrySite is where the channel's i-th entry is written, as site gives it, and the object
// holding it: the entry's CSV (bundle trees, package manifests) or the channel blob.
func (ch *Channel) entrySite(p *Package, i int) (diag.Origin, string, string) {
	origin, prefix := ch.site(p, i)
	if ch.EdgesInCSVs && p.Bundle(ch.Entries[i].Name) != nil {
		return origin, "ClusterServiceVersion/" + ch.Entries[i].Name, prefix
	}
	return origin, blobName(SchemaChannel, p.Name, ch.Name), prefix
}

// heads lists the channel's heads, newest first: the entries no edge leads to.
func (ch *Channel) heads(p *Package) []string {
	incoming := map[string]bool{}
	for _, e := range ch.Entries {
		incoming[e.Replaces] = true
		for _, s := range e.Skips {
			incoming[s] = true
		}
	}
	var out []string
	for _, e := range ch.Entries {
		if !incoming[e.Name] {
			out = append(out, e.Name)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(-p.version(a).Compare(p.version(b)), cmp.Compare(a, b)) })
	return out
}

// version is the named bundle's version, or 0.0.0 when the package has no such bundle.
func (p *Package) version(name string) semver.Version {
	if b := p.Bundle(name); b != nil {
		return b.Version
	}
	return semver.Version{}
}

// graphProblems explains what keeps OLM from ordering a channel (its resolver's sortChannel
// fails, and so does every resolution that reads the channel): no head, several heads, or a
// cycle along replaces. Each problem is reported where the edge to fix is written, with the
// bundle it most likely meant; severity is the problems' severity.
func graphProblems(p *Package, ch *Channel, severity diag.Severity) diag.Problems {
	g := channelGraph{p: p, ch: ch, edges: ch.edges(p), severity: severity}
	heads := ch.heads(p)
	switch {
	case len(heads) == 0:
		return g.noHead()
	case len(heads) > 1:
		return g.severalHeads(heads)
	}
	return g.cycleFrom(heads[0])
}

// channelGraph is a channel being explained.
type channelGraph struct {
	p        *Package
	ch       *Channel
	edges    []edge
	severity diag.Severity
}

// problem reports msg at the edge e, or at the channel when e is nil.
func (g channelGraph) problem(e *edge, format string, args ...any) diag.Problem {
	p := diag.Problem{Severity: g.severity, Origin: g.ch.Origin, Object: fmt.Sprintf("package %q channel %q", g.p.Name, g.ch.Name),
		Message: fmt.Sprintf(format, args...)}
	if e != nil {
		p.Origin, p.Field = e.origin, e.field
	}
	return p
}

// dangling lists the edges that name no entry of the channel.
func (g channelGraph) dangling() []edge {
	var out []edge
	for _, e := range g.edges {
		if g.ch.Entry(e.to) == nil {
			out = append(out, e)
		}
	}
	return out
}

// severalHeads explains each head but the newest: a dangling edge that most likely meant it
// (a typo in replaces or skips), else the next version's replaces, which does not lead to it.
func (g channelGraph) severalHeads(heads []string) diag.Problems {
	summary := "multiple channel heads found in graph: " + strings.Join(slices.Sorted(slices.Values(heads)), ", ")
	var out diag.Problems
	for _, head := range heads[1:] {
		if e := g.meant(head); e != nil {
			out.Add(g.problem(e, "%q names no bundle of channel %q: did you mean %q? (%s: OLM cannot order the channel)",
				e.to, g.ch.Name, head, summary))
			continue
		}
		next := g.successor(head, heads[0])
		e := g.replacesOf(next)
		out.Add(g.problem(e, "%s: nothing replaces or skips %s, so OLM cannot order the channel; make %s, the next version, replace or skip it",
			summary, head, next))
	}
	return out
}

// meant returns the dangling edge whose target is closest to head, when it is close enough to
// be a typo of it.
func (g channelGraph) meant(head string) *edge {
	for _, e := range g.dangling() {
		if diag.Closest(e.to, []string{head}) != "" {
			return &e
		}
	}
	return nil
}

// successor is the entry of the lowest version above head's (newest when there is none).
func (g channelGraph) successor(head, newest string) string {
	best := newest
	v := g.p.version(head)
	for _, e := range g.ch.Entries {
		ev := g.p.version(e.Name)
		if e.Name != head && ev.GT(v) && ev.LT(g.p.version(best)) {
			best = e.Name
		}
	}
	return best
}

// replacesOf returns the replaces edge of an entry, or, when it replaces nothing, an edge
// standing for its empty replaces field, so that a problem names the file and field to set.
func (g channelGraph) replacesOf(name string) *edge {
	for _, e := range g.edges {
		if e.from == name && strings.HasSuffix(e.field, "replaces") {
			return &e
		}
	}
	i := g.index(name)
	if i < 0 {
		return nil
	}
	origin, prefix := g.ch.site(g.p, i)
	return &edge{from: name, origin: origin, field: prefix + "replaces"}
}

// index is the position of the named entry in the channel.
func (g channelGraph) index(name string) int {
	return slices.IndexFunc(g.ch.Entries, func(e ChannelEntry) bool { return e.Name == name })
}

// noHead explains a channel whose every entry is replaced or skipped: the edges lead round in a
// cycle, and the one to fix is the edge to a bundle no older than the one declaring it.
func (g channelGraph) noHead() diag.Problems {
	e := g.backward(g.edges)
	msg := "no channel head found in graph: every bundle is replaced or skipped by another, so OLM cannot order the channel"
	if e != nil {
		msg += fmt.Sprintf("; %s leads back to %s, a bundle no older than itself", e.from, e.to)
	}
	return diag.Problems{g.problem(e, "%s", msg)}
}

// cycleFrom explains a cycle along replaces from the channel's one head, as opm reports it.
func (g channelGraph) cycleFrom(head string) diag.Problems {
	seen := map[string]bool{}
	var chain []string
	var walked []edge
	for cur := head; cur != ""; {
		if seen[cur] {
			e := g.backward(walked)
			msg := fmt.Sprintf("detected cycle in replaces chain of upgrade graph: %s -> %s", strings.Join(chain, " -> "), cur)
			if e != nil {
				msg += fmt.Sprintf("; %s replaces %s, a bundle no older than itself", e.from, e.to)
			}
			return diag.Problems{g.problem(e, "%s", msg)}
		}
		seen[cur] = true
		chain = append(chain, cur)
		e := g.ch.Entry(cur)
		if e == nil || e.Replaces == "" || g.ch.Entry(e.Replaces) == nil {
			return nil
		}
		walked = append(walked, *g.replacesOf(cur))
		cur = e.Replaces
	}
	return nil
}

// backward returns the first of edges that leads to a bundle of a version no lower than its
// own (in a cycle, the edge that is wrong), or nil.
func (g channelGraph) backward(edges []edge) *edge {
	for _, e := range edges {
		if g.ch.Entry(e.to) != nil && !g.p.version(e.to).LT(g.p.version(e.from)) {
			return &e
		}
	}
	return nil
}

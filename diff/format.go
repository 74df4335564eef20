package diff

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
)

// DefaultMarkdownBudget is the largest Markdown report written by default: GitHub refuses
// comments over 65,536 characters.
const DefaultMarkdownBudget = 65536

// Summary returns "Added (a) / Deleted (d) / Modified (m)".
func (p *Part) Summary() string {
	return fmt.Sprintf("Added (%d) / Deleted (%d) / Modified (%d)", p.Count(Added), p.Count(Deleted), p.Count(Modified))
}

// WriteText writes the summary, the gates that fire, each upgrade with what it changes, what no
// upgrade accounts for, then every object's unified diff. A report in two parts (where OLM
// runs) writes what Git applies, then what OLM will do, each so.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	switch {
	case !r.Changed():
		b.WriteString("No changes.\n")
	case r.OLM != nil:
		r.writeRunningText(&b)
	default:
		b.WriteString(r.Summary() + "\n")
		if gates := r.gateNames(); gates != "" {
			b.WriteString("Gates: " + gates + "\n")
		}
		r.Part.writeText(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeText writes each upgrade with what it changes, what no upgrade accounts for, then every
// object's unified diff.
func (p *Part) writeText(b *strings.Builder) {
	for _, u := range p.Upgrades {
		b.WriteString(u.Namespace + ": " + u.String() + "\n")
		writeSectionsText(b, detailSections(&u.Details, true))
	}
	if p.Other != nil {
		b.WriteString("Other changes:\n")
		writeSectionsText(b, detailSections(p.Other, false))
	}
	for _, c := range p.Changes {
		fmt.Fprintf(b, "\n%s %s (+%d -%d)\n%s", c.Action, c.label(), c.Added, c.Removed, c.Diff)
	}
}

// gateNames returns the gates (other than any-change) that fire, joined by ", ".
func (r *Report) gateNames() string {
	var names []string
	for _, g := range r.Gates() {
		names = append(names, string(g))
	}
	return strings.Join(names, ", ")
}

// jsonReport is the JSON form of a report.
type jsonReport struct {
	Summary  jsonSummary `json:"summary"`
	Gates    []Gate      `json:"gates"`
	Findings []Finding   `json:"findings"`
	Upgrades []Upgrade   `json:"upgrades"`
	Other    *Details    `json:"other,omitempty"`
	Changes  []*Change   `json:"changes"`
}

type jsonSummary struct {
	Added    int `json:"added"`
	Deleted  int `json:"deleted"`
	Modified int `json:"modified"`
}

// summaryOf counts a part's changes for JSON.
func summaryOf(p *Part) jsonSummary {
	return jsonSummary{Added: p.Count(Added), Deleted: p.Count(Deleted), Modified: p.Count(Modified)}
}

// WriteJSON writes the report as one indented JSON document: the summary, the gates that fire
// and why, the upgrades, the rest, then the changes. A report in two parts (where OLM runs)
// holds, after the gates, "applied" and "olm", each with its summary, upgrades, rest and
// changes ("olm" with what OLM will do first).
func (r *Report) WriteJSON(w io.Writer) error {
	var out any
	if r.OLM != nil {
		out = r.runningJSON()
	} else {
		out = jsonReport{
			Summary:  summaryOf(&r.Part),
			Gates:    nonNil(r.Gates()),
			Findings: nonNil(r.Findings),
			Upgrades: jsonUpgrades(r.Upgrades),
			Other:    r.Other,
			Changes:  nonNil(r.Changes),
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("encoding the report: %w", err)
	}
	return nil
}

// jsonUpgrades returns upgrades as JSON shows them: lists empty rather than null.
func jsonUpgrades(ups []Upgrade) []Upgrade {
	out := slices.Clone(nonNil(ups))
	for i := range out {
		out[i].Permissions.Changes = nonNil(out[i].Permissions.Changes)
	}
	return out
}

// nonNil returns s, or an empty slice for nil, so JSON shows [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteMarkdown writes a pull-request comment of at most budget bytes (DefaultMarkdownBudget
// when budget <= 0): a title, the summary, the gates that fire, each upgrade with what it
// changes (images first), what no upgrade accounts for, the list of objects, then one <details>
// section per object. When the budget runs short, long diffs are cut and then whole objects are
// left out; if the head itself is too long, the list of objects goes, then all but the images
// of each upgrade, then everything but the summary; the comment says so.
func (r *Report) WriteMarkdown(w io.Writer, title string, budget int) error {
	if budget <= 0 {
		budget = DefaultMarkdownBudget
	}
	_, err := io.WriteString(w, r.markdown(title, budget))
	return err
}

func (r *Report) markdown(title string, budget int) string {
	if title == "" {
		title = "olm-render diff"
	}
	switch {
	case !r.Changed():
		return clip("## "+title+"\n\nNo changes.\n", budget)
	case r.OLM != nil:
		return r.runningMarkdown(title, budget)
	}
	for level := range headLevels {
		if head := r.markdownHead(title, level); len(head) <= budget {
			return head + detailsOf(r.Changes, budget-len(head))
		}
	}
	return clip(r.summaryOnly(title), budget)
}

// Levels of detail of the Markdown head, tried in order until one fits the budget.
const (
	headFull    = iota // upgrades with their sections, and the list of objects
	headNoList         // upgrades with their sections, no list of objects
	headCompact        // one line per upgrade, with its images; no list of objects
	headLevels         // the number of levels
)

// markdownHead renders the summary, the gates, the upgrades and the list of objects at a
// level of detail.
func (r *Report) markdownHead(title string, level int) string {
	var b strings.Builder
	b.WriteString("## " + title + "\n\n**Summary:** " + r.Summary() + "\n\n")
	if gates := r.Gates(); len(gates) > 0 {
		b.WriteString("**Gates:** " + codeList(gates) + "\n\n")
	}
	r.Part.writeMarkdownHead(&b, "###", level)
	return b.String()
}

// writeMarkdownHead writes the part's upgrades (under headings of the given level, "###"), what
// no upgrade accounts for, and the list of objects, at a level of detail.
func (p *Part) writeMarkdownHead(b *strings.Builder, heading string, level int) {
	for _, u := range p.Upgrades {
		fmt.Fprintf(b, "%s `%s`: %s\n\n", heading, u.Namespace, mdText(u.String()))
		sections := detailSections(&u.Details, true)
		if level == headCompact {
			sections = sections[:min(len(sections), imageSections(sections))]
		}
		writeSectionsMarkdown(b, sections)
	}
	if p.Other != nil && level != headCompact {
		b.WriteString(heading + " Other changes\n\n")
		writeSectionsMarkdown(b, detailSections(p.Other, false))
	}
	if level == headFull {
		b.WriteString(objectList(p.Changes))
	} else {
		b.WriteString(listOmitted)
	}
}

const listOmitted = "_The list of objects is too long for one comment; run `olm-render diff` locally to see it._\n"

// imageSections returns 1 when the first section lists images, else 0.
func imageSections(sections []section) int {
	if len(sections) > 0 && sections[0].title == "Images" {
		return 1
	}
	return 0
}

// codeList renders gates as `a` `b`.
func codeList(gates []Gate) string {
	parts := make([]string, 0, len(gates))
	for _, g := range gates {
		parts = append(parts, "`"+string(g)+"`")
	}
	return strings.Join(parts, " ")
}

// objectList lists every changed object, added first, then deleted, then modified.
func objectList(changes []*Change) string {
	var b strings.Builder
	b.WriteString("**Objects:**\n\n```diff\n")
	for _, a := range []Action{Added, Deleted, Modified} {
		for _, c := range changes {
			if c.Action == a {
				fmt.Fprintf(&b, "%s %s (+%d -%d)\n", marker(a), c.label(), c.Added, c.Removed)
			}
		}
	}
	b.WriteString("```\n")
	return b.String()
}

func (r *Report) summaryOnly(title string) string {
	return fmt.Sprintf("## %s\n\n**Summary:** %s\n\n%s", title, r.Summary(), listOmitted)
}

func marker(a Action) string {
	switch a {
	case Added:
		return "+"
	case Deleted:
		return "-"
	}
	return "!"
}

// detailsOf renders one <details> section per change within budget bytes; when they do not all
// fit, a note says how many are left out (unless not even the note fits).
func detailsOf(changes []*Change, budget int) string {
	var b strings.Builder
	for i, c := range changes {
		rest := len(changes) - i - 1
		reserve := len(omittedNote(rest + 1))
		section := c.section(budget - b.Len() - reserve)
		if section == "" {
			if note := omittedNote(len(changes) - i); b.Len()+len(note) <= budget {
				b.WriteString(note)
			}
			break
		}
		b.WriteString(section)
	}
	return b.String()
}

func omittedNote(n int) string {
	return fmt.Sprintf("\n_%d more objects not shown: the comment would exceed its size limit. Run `olm-render diff` locally for the full diff._\n", n)
}

const (
	sectionOpen  = "\n<details><summary>%s <code>%s</code> (+%d -%d)</summary>\n\n```diff\n"
	sectionClose = "```\n</details>\n"
	cutNote      = "... %d more lines not shown\n"
)

// section renders the change in at most room bytes, cutting its diff if needed; "" when not
// even a cut section fits.
func (c *Change) section(room int) string {
	open := fmt.Sprintf(sectionOpen, c.Action, html.EscapeString(c.label()), c.Added, c.Removed)
	body := strings.ReplaceAll(c.Diff, "```", "` ` `")
	if len(open)+len(body)+len(sectionClose) <= room {
		return open + body + sectionClose
	}
	lines := strings.SplitAfter(body, "\n")
	var kept strings.Builder
	for i, line := range lines {
		note := fmt.Sprintf(cutNote, len(lines)-i)
		if len(open)+kept.Len()+len(line)+len(note)+len(sectionClose) > room {
			if i == 0 {
				return ""
			}
			return open + kept.String() + note + sectionClose
		}
		kept.WriteString(line)
	}
	return open + kept.String() + sectionClose
}

// clip cuts s to at most n bytes on a line boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndex(s[:n], "\n"); i >= 0 {
		return s[:i+1]
	}
	return s[:n]
}

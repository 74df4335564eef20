package diff

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
)

// DefaultMarkdownBudget is the largest Markdown report written by default: GitHub refuses
// comments over 65,536 characters.
const DefaultMarkdownBudget = 65536

// Summary returns "Added (a) / Deleted (d) / Modified (m)".
func (r *Report) Summary() string {
	return fmt.Sprintf("Added (%d) / Deleted (%d) / Modified (%d)", r.Count(Added), r.Count(Deleted), r.Count(Modified))
}

// WriteText writes the summary, the gates that fire, each upgrade with what it changes, what no
// upgrade accounts for, then every object's unified diff.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if !r.Changed() {
		b.WriteString("No changes.\n")
	} else {
		b.WriteString(r.Summary() + "\n")
		if gates := r.gateNames(); gates != "" {
			b.WriteString("Gates: " + gates + "\n")
		}
		for _, u := range r.Upgrades {
			b.WriteString(u.Namespace + ": " + u.String() + "\n")
			writeSectionsText(&b, detailSections(&u.Details, true))
		}
		if r.Other != nil {
			b.WriteString("Other changes:\n")
			writeSectionsText(&b, detailSections(r.Other, false))
		}
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "\n%s %s (+%d -%d)\n%s", c.Action, c.label(), c.Added, c.Removed, c.Diff)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// WriteJSON writes the report as one indented JSON document: the summary, the gates that fire
// and why, the upgrades, the rest, then the changes.
func (r *Report) WriteJSON(w io.Writer) error {
	out := jsonReport{
		Summary:  jsonSummary{Added: r.Count(Added), Deleted: r.Count(Deleted), Modified: r.Count(Modified)},
		Gates:    nonNil(r.Gates()),
		Findings: nonNil(r.Findings),
		Upgrades: nonNil(r.Upgrades),
		Other:    r.Other,
		Changes:  nonNil(r.Changes),
	}
	for i := range out.Upgrades {
		out.Upgrades[i].Permissions.Changes = nonNil(out.Upgrades[i].Permissions.Changes)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("encoding the report: %w", err)
	}
	return nil
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
	if !r.Changed() {
		return clip("## "+title+"\n\nNo changes.\n", budget)
	}
	for level := range headLevels {
		if head := r.markdownHead(title, level); len(head) <= budget {
			return head + r.details(budget-len(head))
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
	for _, u := range r.Upgrades {
		fmt.Fprintf(&b, "### `%s`: %s\n\n", u.Namespace, mdText(u.String()))
		sections := detailSections(&u.Details, true)
		if level == headCompact {
			sections = sections[:min(len(sections), imageSections(sections))]
		}
		writeSectionsMarkdown(&b, sections)
	}
	if r.Other != nil && level != headCompact {
		b.WriteString("### Other changes\n\n")
		writeSectionsMarkdown(&b, detailSections(r.Other, false))
	}
	if level == headFull {
		b.WriteString(r.objectList())
	} else {
		b.WriteString(listOmitted)
	}
	return b.String()
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
func (r *Report) objectList() string {
	var b strings.Builder
	b.WriteString("**Objects:**\n\n```diff\n")
	for _, a := range []Action{Added, Deleted, Modified} {
		for _, c := range r.Changes {
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

// details renders one <details> section per change within budget bytes.
func (r *Report) details(budget int) string {
	var b strings.Builder
	for i, c := range r.Changes {
		rest := len(r.Changes) - i - 1
		reserve := len(omittedNote(rest + 1))
		section := c.section(budget - b.Len() - reserve)
		if section == "" {
			b.WriteString(omittedNote(len(r.Changes) - i))
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

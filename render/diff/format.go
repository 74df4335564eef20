package diff

import (
	"encoding/json"
	"fmt"
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

// WriteText writes the summary, the upgrades and every object's unified diff.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if !r.Changed() {
		b.WriteString("No changes.\n")
	} else {
		b.WriteString(r.Summary() + "\n")
		for _, u := range r.Upgrades {
			b.WriteString(u.Namespace + ": " + u.String() + "\n")
		}
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "\n%s %s (+%d -%d)\n%s", c.Action, c.Key, c.Added, c.Removed, c.Diff)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonReport is the JSON form of a report.
type jsonReport struct {
	Summary  jsonSummary `json:"summary"`
	Upgrades []Upgrade   `json:"upgrades"`
	Changes  []*Change   `json:"changes"`
}

type jsonSummary struct {
	Added    int `json:"added"`
	Deleted  int `json:"deleted"`
	Modified int `json:"modified"`
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	out := jsonReport{
		Summary:  jsonSummary{Added: r.Count(Added), Deleted: r.Count(Deleted), Modified: r.Count(Modified)},
		Upgrades: r.Upgrades,
		Changes:  r.Changes,
	}
	if out.Upgrades == nil {
		out.Upgrades = []Upgrade{}
	}
	if out.Changes == nil {
		out.Changes = []*Change{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteMarkdown writes a pull-request comment of at most budget bytes (DefaultMarkdownBudget
// when budget <= 0): a title, the upgrades, the summary block, then one <details> section per
// object. When the budget runs short, long diffs are cut and then whole objects are listed by
// name only, and the comment says so.
func (r *Report) WriteMarkdown(w io.Writer, title string, budget int) error {
	if budget <= 0 {
		budget = DefaultMarkdownBudget
	}
	_, err := io.WriteString(w, r.markdown(title, budget))
	return err
}

func (r *Report) markdown(title string, budget int) string {
	var head strings.Builder
	if title == "" {
		title = "olm-render diff"
	}
	head.WriteString("## " + title + "\n\n")
	if !r.Changed() {
		head.WriteString("No changes.\n")
		return clip(head.String(), budget)
	}
	for _, u := range r.Upgrades {
		fmt.Fprintf(&head, "- `%s`: %s\n", u.Namespace, u.String())
	}
	if len(r.Upgrades) > 0 {
		head.WriteString("\n")
	}
	head.WriteString(r.summaryBlock())
	out := head.String()
	if len(out) > budget {
		return clip(r.summaryOnly(title), budget)
	}
	return out + r.details(budget-len(out))
}

func (r *Report) summaryBlock() string {
	var b strings.Builder
	b.WriteString("**Summary:** " + r.Summary() + "\n\n```diff\n")
	for _, a := range []Action{Added, Deleted, Modified} {
		for _, c := range r.Changes {
			if c.Action == a {
				fmt.Fprintf(&b, "%s %s (+%d -%d)\n", marker(a), c.Key, c.Added, c.Removed)
			}
		}
	}
	b.WriteString("```\n")
	return b.String()
}

func (r *Report) summaryOnly(title string) string {
	return fmt.Sprintf("## %s\n\n**Summary:** %s\n\n_The list of objects is too long for one comment; run `olm-render diff` locally to see it._\n", title, r.Summary())
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
	open := fmt.Sprintf(sectionOpen, c.Action, c.Key, c.Added, c.Removed)
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

package diff

import (
	"fmt"
	"strings"
)

// section is one part of an upgrade summary, such as "Images" or "Permissions", rendered the
// same way in text and Markdown.
type section struct {
	title string
	// summary follows the title on its line; may be empty.
	summary string
	items   []item
}

// item is one line of a section, with indented lines under it.
type item struct {
	text string
	sub  []string
}

// detailSections returns the sections of details in review order: images first, then
// permissions (always shown for an upgrade), CRDs, webhooks, dependencies and install modes.
func detailSections(d *Details, upgrade bool) []section {
	var out []section
	if s := imageSection(d); len(s.items) > 0 {
		out = append(out, s)
	}
	if upgrade || len(d.Permissions.Changes) > 0 {
		out = append(out, permissionSection(d.Permissions))
	}
	out = appendSection(out, "CRDs", crdItems(d.CRDs))
	out = appendSection(out, "Webhooks", stringItems(d.Webhooks))
	out = appendSection(out, "Dependencies", stringItems(d.Dependencies))
	return appendSection(out, "Install modes", stringItems(d.InstallModes))
}

// appendSection adds a section of items, unless there are none.
func appendSection(out []section, title string, items []item) []section {
	if len(items) == 0 {
		return out
	}
	return append(out, section{title: title, items: items})
}

// imageSection lists Deployment images, then related images.
func imageSection(d *Details) section {
	s := section{title: "Images"}
	s.items = append(stringItems(d.Images), stringItems(d.RelatedImages)...)
	return s
}

// permissionSection summarises permission changes and lists one line per change.
func permissionSection(p PermissionChanges) section {
	s := section{title: "Permissions", summary: permissionSummary(p)}
	for _, c := range p.Changes {
		s.items = append(s.items, item{text: c.Summary})
	}
	return s
}

// permissionSummary reads "unchanged", or "grew: 2 added, 1 removed; sensitive: secrets: get",
// or "shrank: 1 removed".
func permissionSummary(p PermissionChanges) string {
	if len(p.Changes) == 0 {
		return "unchanged"
	}
	var counts []string
	for _, kind := range []string{"added", "widened", "removed", unknownPermissions} {
		if n := p.count(kind); n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, kind))
		}
	}
	verdict := "shrank"
	if p.Grew {
		verdict = "grew"
	}
	out := verdict + ": " + strings.Join(counts, ", ")
	if sens := p.Sensitive(); len(sens) > 0 {
		out += "; sensitive: " + strings.Join(sens, "; ")
	}
	return out
}

// crdItems lists each CRD with its breaking changes under it.
func crdItems(crds []CRDChange) []item {
	out := make([]item, 0, len(crds))
	for _, c := range crds {
		it := item{text: c.String()}
		if c.Action == Modified {
			it.sub = c.Breaking
		}
		out = append(out, it)
	}
	return out
}

// stringItems turns values into one item each.
func stringItems[T fmt.Stringer](list []T) []item {
	out := make([]item, 0, len(list))
	for _, v := range list {
		out = append(out, item{text: v.String()})
	}
	return out
}

// writeSectionsText writes sections indented under an upgrade line.
func writeSectionsText(b *strings.Builder, sections []section) {
	for _, s := range sections {
		b.WriteString("  " + s.title + ":")
		if s.summary != "" {
			b.WriteString(" " + s.summary)
		}
		b.WriteString("\n")
		for _, it := range s.items {
			b.WriteString("    " + it.text + "\n")
			for _, sub := range it.sub {
				b.WriteString("      " + sub + "\n")
			}
		}
	}
}

// inlineItems is the most items a Markdown section shows before collapsing them.
const inlineItems = 3

// writeSectionsMarkdown writes sections as bold headings with lists; a section with more than
// inlineItems items (images excepted) is collapsed in <details>.
func writeSectionsMarkdown(b *strings.Builder, sections []section) {
	for _, s := range sections {
		b.WriteString("**" + s.title + "**")
		if s.summary != "" {
			b.WriteString(": " + mdText(s.summary))
		}
		b.WriteString("\n")
		collapse := s.title != "Images" && len(s.items) > inlineItems
		if collapse {
			fmt.Fprintf(b, "<details><summary>%d %s</summary>\n\n", len(s.items), plural(len(s.items), "line", "lines"))
		}
		writeItemsMarkdown(b, s.items)
		if collapse {
			b.WriteString("\n</details>\n")
		}
		b.WriteString("\n")
	}
}

func writeItemsMarkdown(b *strings.Builder, items []item) {
	for _, it := range items {
		b.WriteString("- " + mdText(it.text) + "\n")
		for _, sub := range it.sub {
			b.WriteString("  - " + mdText(sub) + "\n")
		}
	}
}

// mdText escapes the characters Markdown or HTML would interpret in plain text.
var mdText = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "|", `\|`, "#", `\#`,
).Replace

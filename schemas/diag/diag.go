// Package diag carries the problems olm-render finds in its inputs: where each one is (file and
// document), which object and field it concerns, and how bad it is. Every stage collects problems
// instead of stopping at the first, and reports them sorted.
//
// # Format
//
// A problem prints as
//
//	<file>#<document>: <object>: <field>: <message>
//
// where the parts that are unknown are left out; the document index is 0-based and printed only
// for files that hold more than one document or when it is not 0.
package diag

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Severity says whether a problem fails the run.
type Severity string

// Severities, as the KRM Functions Specification spells them.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Origin is where an object was read from: a file and the 0-based index of the YAML or JSON
// document inside it.
type Origin struct {
	File  string `json:"file,omitempty"`
	Index int    `json:"index,omitempty"`
}

// String returns "file" or "file#index" when the index is not 0.
func (o Origin) String() string {
	if o.File == "" {
		return ""
	}
	if o.Index == 0 {
		return o.File
	}
	return fmt.Sprintf("%s#%d", o.File, o.Index)
}

// Compare orders origins by file, then document index.
func (o Origin) Compare(p Origin) int {
	return cmp.Or(cmp.Compare(o.File, p.File), cmp.Compare(o.Index, p.Index))
}

// Problem is one thing wrong (or worth knowing) about the inputs.
type Problem struct {
	// Severity is Error unless set otherwise.
	Severity Severity `json:"severity,omitempty"`
	// Origin is the file and document the problem was found in.
	Origin Origin `json:"origin,omitempty"`
	// Object names the object concerned, e.g. "Subscription/ops/etcd" or `bundle "etcd.v0.9.2"`.
	Object string `json:"object,omitempty"`
	// Field is the field path inside Object, e.g. "spec.channel".
	Field string `json:"field,omitempty"`
	// Message says what is wrong, lower-case, without trailing punctuation.
	Message string `json:"message"`
	// Package is the catalog package a problem of a catalog snapshot concerns, when one does:
	// a render prints in full the warnings of the packages it uses and counts the others.
	Package string `json:"package,omitempty"`
}

// InPackage returns the problems with Package set to pkg.
func (ps Problems) InPackage(pkg string) Problems {
	out := make(Problems, len(ps))
	for i, p := range ps {
		p.Package = pkg
		out[i] = p
	}
	return out
}

// Error formats the problem as "file#doc: object: field: message".
func (p Problem) Error() string {
	parts := make([]string, 0, 4)
	for _, s := range []string{p.Origin.String(), p.Object, p.Field} {
		if s != "" {
			parts = append(parts, Printable(s))
		}
	}
	if p.Message != "" {
		parts = append(parts, Printable(strings.Join(strings.Fields(strings.ReplaceAll(p.Message, "\n", " \u23ce ")), " ")))
	}
	return strings.Join(parts, ": ")
}

// Printable returns s with what a terminal would act on rather than show escaped as Go escapes
// it in a quoted string: control characters (a newline in an object's name would forge a line
// of output, an escape sequence would rewrite the terminal), Unicode format characters (bidi
// overrides) and bytes that are not UTF-8. Names and values in messages come from inputs anyone
// can push to a repository.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if !printableRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case printableRune(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// printableRune reports whether r is shown as itself: not a control or format character, and
// valid UTF-8.
func printableRune(r rune) bool {
	return r != utf8.RuneError && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r)
}

// IsError reports whether the problem fails the run.
func (p Problem) IsError() bool { return p.Severity == "" || p.Severity == Error }

// Compare is a total order on problems: file, document, object, field, message, severity.
func (p Problem) Compare(q Problem) int {
	return cmp.Or(
		p.Origin.Compare(q.Origin),
		cmp.Compare(p.Object, q.Object),
		cmp.Compare(p.Field, q.Field),
		cmp.Compare(p.Message, q.Message),
		cmp.Compare(p.Severity, q.Severity),
	)
}

// Problems is a list of problems. As an error it prints one problem a line, sorted.
type Problems []Problem

// Add appends a problem.
func (ps *Problems) Add(p Problem) { *ps = append(*ps, p) }

// Errorf appends an error-severity problem.
func (ps *Problems) Errorf(origin Origin, object, field, format string, args ...any) {
	ps.Add(Problem{Severity: Error, Origin: origin, Object: object, Field: field, Message: fmt.Sprintf(format, args...)})
}

// Warnf appends a warning.
func (ps *Problems) Warnf(origin Origin, object, field, format string, args ...any) {
	ps.Add(Problem{Severity: Warning, Origin: origin, Object: object, Field: field, Message: fmt.Sprintf(format, args...)})
}

// Sorted returns a sorted copy without duplicates.
func (ps Problems) Sorted() Problems {
	out := slices.Clone(ps)
	slices.SortFunc(out, Problem.Compare)
	return slices.CompactFunc(out, func(a, b Problem) bool { return a.Compare(b) == 0 })
}

// Errors returns only the error-severity problems.
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if p.IsError() {
			out = append(out, p)
		}
	}
	return out
}

// Warnings returns the problems that do not fail the run.
func (ps Problems) Warnings() Problems {
	var out Problems
	for _, p := range ps {
		if !p.IsError() {
			out = append(out, p)
		}
	}
	return out
}

// Err returns the error-severity problems, sorted, as an error; nil when there are none.
func (ps Problems) Err() error {
	errs := ps.Errors()
	if len(errs) == 0 {
		return nil
	}
	return errs.Sorted()
}

// Error prints the problems sorted, one a line.
func (ps Problems) Error() string {
	lines := make([]string, 0, len(ps))
	for _, p := range ps.Sorted() {
		lines = append(lines, p.Error())
	}
	return strings.Join(lines, "\n")
}

// From extracts problems from err: a Problems or Problem anywhere in its chain (errors.As), or
// else one problem holding err's text.
func From(err error) Problems {
	if err == nil {
		return nil
	}
	var ps Problems
	if errors.As(err, &ps) {
		return ps
	}
	var p Problem
	if errors.As(err, &p) {
		return Problems{p}
	}
	return Problems{{Severity: Error, Message: err.Error()}}
}

// quoted matches what YAML and JSON decoders quote of a document in their messages.
var (
	quoted     = regexp.MustCompile("`[^`]*`|'[^'\n]*'|\"(?:[^\"\\\\]|\\\\.)*\"")
	identifier = regexp.MustCompile(`^["'][A-Za-z_$][A-Za-z0-9_.$-]{0,47}["']$`)
)

// Decoding describes a YAML or JSON decoding error without quoting the document: decoders put
// values of the input into their messages, and an input may be any file (an /etc/passwd bound
// as a catalog), so every quoted value but a short field name is replaced, and the message is
// made one line and cut to 200 characters.
func Decoding(err error) string {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
	msg = quoted.ReplaceAllStringFunc(msg, func(q string) string {
		if identifier.MatchString(q) {
			return q
		}
		return "a value"
	})
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}

// Closest returns the candidate closest to word by edit distance (ignoring case), when it is
// close enough to be a typo of it (at most a third of its length away), else "".
func Closest(word string, candidates []string) string {
	best, bestDist := "", len(word)/3+1
	for _, c := range candidates {
		if d := Distance(strings.ToLower(word), strings.ToLower(c)); d < bestDist || (d == bestDist && best != "" && c < best) {
			if d <= len(word)/3+1 && d < len(word) {
				best, bestDist = c, d
			}
		}
	}
	return best
}

// Distance is the Levenshtein distance of two strings.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commandTree returns every command a person can run, the root first, with cobra's own help and
// completion commands as Execute adds them.
func commandTree() []*cobra.Command {
	root := newRootCommand(strings.NewReader(""), io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var out []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// helpName is the golden file of a command's help: testdata/help/<command path>.txt, the words
// after olm-render joined by "-" (olm-render.txt for the root).
func helpName(c *cobra.Command) string {
	words := strings.Fields(c.CommandPath())
	if len(words) == 1 {
		return "help/olm-render.txt"
	}
	return "help/" + strings.Join(words[1:], "-") + ".txt"
}

// TestHelp compares every command's --help with its golden file (go test -run TestHelp -update
// rewrites them): a changed flag, a stray value name or a wrong default shows in review.
func TestHelp(t *testing.T) {
	var want []string
	for _, c := range commandTree() {
		name := helpName(c)
		want = append(want, filepath.Base(name))
		t.Run(name, func(t *testing.T) {
			args := append(strings.Fields(c.CommandPath())[1:], "--help")
			code, out, errOut := runCLI(t, args...)
			if code != 0 || errOut != "" {
				t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errOut)
			}
			golden(t, name, out)
		})
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "help"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(want, e.Name()) {
			t.Errorf("testdata/help/%s is the help of no command: remove it", e.Name())
		}
	}
}

// visibleFlags returns the flags a command's help shows (its own and inherited), by name.
func visibleFlags(c *cobra.Command) map[string]*pflag.Flag {
	out := map[string]*pflag.Flag{}
	for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.InheritedFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				out[f.Name] = f
			}
		})
	}
	return out
}

// enumerated are the flags that take one of a few values: each completes them in the shell.
var enumerated = []string{"output", "for", "cert-provider", "load-restrictor", "fail-on", "subscription"}

// directories are the flags that name a directory: each completes directories.
var directories = []string{"output-dir", "root", "cache-dir", "against", "repo"}

// perCommand are the flags whose usage may differ between commands (what -o formats, what the
// root bounds, what a kubeconfig is for, what a dry run leaves unwritten), with type and
// shorthand still the same.
var perCommand = []string{"output", "output-dir", "root", "kubeconfig", "context", "namespace", "dry-run"}

// TestGrammar checks the rules every command follows, so a new command or flag cannot break them
// unnoticed: inputs are arguments; -o is --output, the output format; directories written are
// --output-dir; a flag means the same everywhere; values complete in the shell; usage strings
// carry no back-quotes (pflag would show the quoted text as the flag's value name).
func TestGrammar(t *testing.T) {
	type seen struct {
		cmd string
		f   *pflag.Flag
	}
	first := map[string]seen{}
	for _, c := range commandTree() {
		path := c.CommandPath()
		if c.Short == "" {
			t.Errorf("%s: no short description", path)
		}
		for name, f := range visibleFlags(c) {
			where := path + " --" + name
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s: usage %q has a back-quote: pflag shows the quoted text as the value name", where, f.Usage)
			}
			if f.Usage == "" || strings.ToLower(f.Usage[:1]) != f.Usage[:1] || strings.HasSuffix(f.Usage, ".") {
				t.Errorf("%s: usage %q: want a lower-case phrase without a final period", where, f.Usage)
			}
			switch {
			case name == "format" || name == "inputs":
				t.Errorf("%s: a visible --%s (the output format is -o/--output; inputs are arguments)", where, name)
			case name == "output" && (f.Shorthand != "o" || !strings.HasPrefix(f.Usage, "output format: ")):
				t.Errorf("%s: --output must be -o, the output format (a directory is --output-dir)", where)
			case f.Shorthand == "o" && name != "output":
				t.Errorf("%s: -o must mean --output, the output format", where)
			}
			if slices.Contains(enumerated, name) || slices.Contains(directories, name) {
				owner := c
				if c.InheritedFlags().Lookup(name) != nil {
					owner = c.Parent()
				}
				if _, ok := owner.GetFlagCompletionFunc(name); !ok {
					t.Errorf("%s: its values do not complete in the shell", where)
				}
			}
			if s, ok := first[name]; !ok {
				first[name] = seen{path, f}
			} else if s.f.Value.Type() != f.Value.Type() || s.f.Shorthand != f.Shorthand ||
				!slices.Contains(perCommand, name) && (s.f.Usage != f.Usage || s.f.DefValue != f.DefValue) {
				t.Errorf("%s means something else than %s --%s: type %s/%s, shorthand %q/%q, default %q/%q, usage\n  %q\n  %q",
					where, s.cmd, name, f.Value.Type(), s.f.Value.Type(), f.Shorthand, s.f.Shorthand, f.DefValue, s.f.DefValue, f.Usage, s.f.Usage)
			}
		}
		// upgrade and diff check their arguments against their flags when they run.
		if strings.Contains(c.Use, "PATH") && c.Args == nil && c.Name() != "upgrade" && c.Name() != "diff" {
			t.Errorf("%s: takes PATHs but does not check its arguments", path)
		}
	}
}

// TestDeprecatedSpellings: the spellings before this grammar still work, each with a warning
// naming the current one; giving both is an error.
func TestDeprecatedSpellings(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"render -o DIR", []string{"render", "--no-lock", "-o", "out", "input"}, 0,
			[]string{"warning: -o DIR is deprecated: use --output-dir out", "wrote 40 objects to out"}},
		{"render -o json", []string{"render", "--no-lock", "-o", "json", "input"}, 0, nil},
		{"render -o with --output-dir", []string{"render", "--no-lock", "-o", "json", "--output-dir", "out", "input"}, 1,
			[]string{"-o json writes a stream on stdout and --output-dir a directory"}},
		{"images --format", []string{"images", "--format", "json", "input"}, 0,
			[]string{"warning: --format is deprecated: use --output"}},
		{"images --format and -o", []string{"images", "--format", "json", "-o", "text", "input"}, 1,
			[]string{"--format and --output are the same setting: give only --output"}},
		{"upgrade -i", []string{"upgrade", "--all", "--dry-run", "-i", "input"}, 1,
			[]string{"warning: -i/--inputs is deprecated: give the inputs as arguments", "olm-render.lock.yaml does not exist"}},
		{"catalog pull -o", []string{"catalog", "pull", "--offline", "--cache-dir", "cache", "registry.invalid/x:v1", "-o", "out"}, 1,
			[]string{"warning: -o/--output is deprecated: use --output-dir", "--offline"}},
		{"import -o", []string{"import", "--kubeconfig", "missing", "-o", "out"}, 1,
			[]string{"warning: -o/--output is deprecated: use --output-dir", "missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			quickstartWith(t)
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, errOut)
				}
			}
			if strings.Contains(out, "deprecated") {
				t.Errorf("a deprecation warning went to stdout:\n%s", out)
			}
		})
	}
}

// TestJSONOutput: render -o json prints the objects as one JSON List, as kubectl does.
func TestJSONOutput(t *testing.T) {
	code, out, errOut := runCLI(t, "render", "--locked", "-o", "json", quickstart)
	if code != 0 || !strings.HasPrefix(out, "{\n  \"apiVersion\": \"v1\",\n  \"items\": [") || !strings.Contains(out, `"name": "widget-operator.v0.2.0"`) {
		t.Fatalf("exit %d: %s\n%.300s", code, errOut, out)
	}
}

// TestUpgradeInputsAsArguments: upgrade takes its inputs as arguments, from a repository holding
// other files too (the old grammar read them as Subscriptions and the whole repository as input).
func TestUpgradeInputsAsArguments(t *testing.T) {
	dir := lockInputs(t)
	for _, d := range []string{".git", "docs"} {
		os.Mkdir(d, 0o755)
	}
	fixtureWrite(t, "docs/notes.yaml", "just: notes\n")
	if code, _, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "upgrade", "--all", "--dry-run", dir)
	if code != 0 || !strings.Contains(out, "widget-operator.v0.1.0 → widget-operator.v0.2.0") || errOut != "" {
		t.Fatalf("upgrade --all %s: exit %d: %s%s", dir, code, out, errOut)
	}
	code, out, errOut = runCLI(t, "upgrade", "--subscription", "operators/widget-operator", dir)
	if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(dir, "olm-render.lock.yaml")) {
		t.Fatalf("upgrade --subscription: exit %d: %s%s", code, out, errOut)
	}
	for _, args := range [][]string{{"upgrade", dir}, {"upgrade", "--all", "--subscription", "operators/widget-operator", dir}} {
		if code, _, errOut := runCLI(t, args...); code != 1 || !strings.Contains(errOut, "upgrade needs --all or --subscription") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "upgrade", "--all"); code != 1 || !strings.Contains(errOut, "upgrade needs the input PATHs") {
		t.Errorf("upgrade --all without inputs: exit %d: %s", code, errOut)
	}
}

// TestCompletion asks cobra's completion command what the shell would offer for flag values.
func TestCompletion(t *testing.T) {
	dir := lockInputs(t)
	if code, _, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: exit %d: %s", code, errOut)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"render", "--for", ""}, []string{"kubectl", "argocd", "flux"}},
		{[]string{"render", "--cert-provider", ""}, []string{"cert-manager", "openshift-service-ca", "none"}},
		{[]string{"render", "-o", ""}, []string{"yaml", "json"}},
		{[]string{"resolve", "-o", ""}, []string{"yaml", "json", "table"}},
		{[]string{"images", "-o", ""}, []string{"text", "json", "imageset"}},
		{[]string{"diff", "-o", ""}, []string{"text", "markdown", "json"}},
		{[]string{"diff", "--fail-on", "crd-breaking,"}, []string{"crd-breaking,any-change", "crd-breaking,webhook-change"}},
		{[]string{"upgrade", dir, "--subscription", ""}, []string{"operators/widget-operator\twidget-operator.v0.1.0"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{cobra.ShellCompRequestCmd}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			for _, w := range tt.want {
				if !slices.Contains(lines, w) {
					t.Errorf("no %q among the completions:\n%s", w, out)
				}
			}
		})
	}
}

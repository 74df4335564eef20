package solver

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

type variable struct {
	id          Identifier
	constraints []Constraint
}

func (v variable) Identifier() Identifier    { return v.id }
func (v variable) Constraints() []Constraint { return v.constraints }

func v(id string, cs ...Constraint) Variable { return variable{Identifier(id), cs} }

func ids(vs []Variable) []string {
	out := []string{}
	for _, x := range vs {
		out = append(out, string(x.Identifier()))
	}
	return out
}

// TestSolve holds the solver scenarios of resolver-spec §5.1 (OLM's solve_test.go).
func TestSolve(t *testing.T) {
	tests := []struct {
		id   string
		vars []Variable
		want []string
		err  string   // exact error
		core []string // NotSatisfiable conflicts, as a set
	}{
		{id: "S01", want: []string{}},
		{id: "S02", vars: []Variable{v("a")}, want: []string{}},
		{id: "S03", vars: []Variable{v("a", Mandatory())}, want: []string{"a"}},
		{id: "S04", vars: []Variable{v("a", Mandatory(), Prohibited())}, err: "constraints not satisfiable: a is mandatory, a is prohibited"},
		{id: "S05", vars: []Variable{v("a"), v("b", Mandatory(), Dependency("a"))}, want: []string{"a", "b"}},
		{id: "S06", vars: []Variable{v("a"), v("b", Dependency("a")), v("c", Mandatory(), Dependency("b"))}, want: []string{"a", "b", "c"}},
		{id: "S07", vars: []Variable{v("a"), v("b"), v("c", Mandatory(), Dependency("a"), Dependency("b"))}, want: []string{"a", "b", "c"}},
		{id: "S08", vars: []Variable{v("a"), v("b", Conflict("a")), v("c", Mandatory(), Dependency("a", "b"))}, want: []string{"a", "c"}},
		{id: "S09", vars: []Variable{v("a"), v("b"), v("c", Mandatory(), Dependency("a", "b"))}, want: []string{"a", "c"}},
		{id: "S10", vars: []Variable{v("a"), v("b", Conflict("a")), v("c", Mandatory(), Dependency("b", "a"))}, want: []string{"b", "c"}},
		{id: "S11", vars: []Variable{v("a", Mandatory()), v("b", Mandatory(), Conflict("a"))}, core: []string{"a is mandatory", "b is mandatory", "b conflicts with a"}},
		{id: "S12", vars: []Variable{v("a", Dependency("x", "y")), v("b", Mandatory(), Dependency("y", "x")), v("x"), v("y")}, want: []string{"b", "y"}},
		{id: "S13", vars: []Variable{v("a", Mandatory(), Dependency("x", "y"), AtMost(1, "x", "y")), v("x", Mandatory()), v("y", Mandatory())},
			core: []string{"a permits at most 1 of x, y", "x is mandatory", "y is mandatory"}},
		{id: "S14", vars: []Variable{v("a", Mandatory(), Dependency("x", "y"), AtMost(1, "x", "y")), v("b", Mandatory(), Dependency("y")), v("x"), v("y")}, want: []string{"a", "b", "y"}},
		{id: "S15", vars: []Variable{v("a", Mandatory(), Dependency("y")), v("b", Mandatory(), Dependency("x", "y")), v("x"), v("y")}, want: []string{"a", "b", "y"}},
		{id: "S16", vars: []Variable{v("a", Mandatory(), Dependency("y", "z", "m")), v("b", Mandatory(), Dependency("x", "y")), v("x"), v("y"), v("z"), v("m")}, want: []string{"a", "b", "y"}},
		{id: "S17", vars: []Variable{v("a", Mandatory(), Dependency("x", "y")), v("b", Mandatory(), Dependency("y")), v("x"), v("y")}, want: []string{"a", "b", "x", "y"}},
		{id: "S18", vars: []Variable{
			v("a", Mandatory(), Dependency("a1", "a2")), v("a1", Conflict("c1"), Conflict("c2")), v("a2", Conflict("c1")),
			v("b", Mandatory(), Dependency("b1", "b2")), v("b1", Conflict("c1"), Conflict("c2")), v("b2", Conflict("c1")),
			v("c", Mandatory(), Dependency("c1", "c2")), v("c1"), v("c2"),
		}, want: []string{"a", "a2", "b", "b2", "c", "c2"}},
		{id: "S19", vars: []Variable{v("a", Mandatory(), Dependency("x1", "x2"), Dependency("y1", "y2")), v("x1"), v("x2"), v("y1"), v("y2")}, want: []string{"a", "x1", "y1"}},
		{id: "S20", vars: []Variable{v("a"), v("a")}, err: `duplicate identifier "a" in input`},
		{id: "unknown", vars: []Variable{v("a", Mandatory(), Dependency("x"))}, err: `1 errors encountered: variable "x" referenced but not provided`},
		{id: "no candidates", vars: []Variable{v("a", Mandatory(), Dependency())}, err: "constraints not satisfiable: a has a dependency without any candidates to satisfy it, a is mandatory"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := Solve(context.Background(), tt.vars)
			switch {
			case tt.err != "":
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
			case tt.core != nil:
				var ns NotSatisfiable
				if !errors.As(err, &ns) {
					t.Fatalf("error %v, want NotSatisfiable", err)
				}
				var got []string
				for _, a := range ns {
					got = append(got, a.String())
				}
				slices.Sort(got)
				want := slices.Sorted(slices.Values(tt.core))
				if !slices.Equal(got, want) {
					t.Errorf("conflicts %q, want %q", got, want)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if g := ids(got); !slices.Equal(g, tt.want) {
					t.Errorf("got %v, want %v", g, tt.want)
				}
			}
		})
	}
}

func TestNotSatisfiableError(t *testing.T) {
	if got := (NotSatisfiable{}).Error(); got != "constraints not satisfiable" {
		t.Errorf("%q", got)
	}
	ns := NotSatisfiable{{Variable: v("a"), Constraint: Mandatory()}, {Variable: v("b"), Constraint: Prohibited()}}
	if got := ns.Error(); got != "constraints not satisfiable: a is mandatory, b is prohibited" {
		t.Errorf("%q", got)
	}
	if got := AtMost(1, "x", "y").String("a"); got != "a permits at most 1 of x, y" {
		t.Errorf("%q", got)
	}
	if got := Dependency("x", "y").String("a"); got != "a requires at least one of x, y" {
		t.Errorf("%q", got)
	}
	if !strings.Contains(Conflict("b").String("a"), "a conflicts with b") {
		t.Error("conflict string")
	}
}

// BenchmarkSolveChains solves a problem shaped like a large resolution: 300 packages with 20
// versions each, every version depending on one of the versions of the next package.
func BenchmarkSolveChains(b *testing.B) {
	const packages, versions = 300, 20
	var vars []Variable
	name := func(p, v int) Identifier {
		return Identifier(string(rune('a'+p%26)) + strings.Repeat("x", p/26) + "-" + string(rune('0'+v%10)) + strings.Repeat("y", v/10))
	}
	for p := range packages {
		var all []Identifier
		for ver := range versions {
			all = append(all, name(p, ver))
		}
		for ver := range versions {
			var cs []Constraint
			if p+1 < packages {
				var deps []Identifier
				for w := range versions {
					deps = append(deps, name(p+1, w))
				}
				cs = append(cs, Dependency(deps...))
			}
			vars = append(vars, v(string(name(p, ver)), cs...))
		}
		vars = append(vars, v("pkg-"+string(name(p, 0)), Mandatory(), AtMost(1, all...)))
	}
	vars = append(vars, v("root", Mandatory(), Dependency(name(0, 0))))
	b.ResetTimer()
	for range b.N {
		if _, err := Solve(context.Background(), vars); err != nil {
			b.Fatal(err)
		}
	}
}

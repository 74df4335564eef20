package diag

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestProblemError(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{"all parts", Problem{Origin: Origin{File: "a.yaml", Index: 2}, Object: "Subscription/ops/etcd", Field: "spec.channel", Message: "no such channel"}, "a.yaml#2: Subscription/ops/etcd: spec.channel: no such channel"},
		{"first document", Problem{Origin: Origin{File: "a.yaml"}, Object: "x", Message: "m"}, "a.yaml: x: m"},
		{"message only", Problem{Message: "m"}, "m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestProblemsSortedAndFiltered(t *testing.T) {
	var ps Problems
	ps.Errorf(Origin{File: "b.yaml"}, "", "", "second")
	ps.Warnf(Origin{File: "a.yaml"}, "", "", "a warning")
	ps.Errorf(Origin{File: "a.yaml", Index: 1}, "", "", "first")
	ps.Errorf(Origin{File: "a.yaml", Index: 1}, "", "", "first")
	if got, want := ps.Error(), "a.yaml: a warning\na.yaml#1: first\nb.yaml: second"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	err := ps.Err()
	if err == nil {
		t.Fatal("Err() = nil, want the two errors")
	}
	if got, want := err.Error(), "a.yaml#1: first\nb.yaml: second"; got != want {
		t.Errorf("Err() = %q, want %q", got, want)
	}
	if len(ps.Warnings()) != 1 {
		t.Errorf("Warnings() = %v, want one", ps.Warnings())
	}
	if (Problems{}).Err() != nil {
		t.Error("Err() of no problems is not nil")
	}
}

func TestFrom(t *testing.T) {
	ps := Problems{{Message: "x"}}
	wrapped := fmt.Errorf("loading: %w", ps)
	if got := From(wrapped); len(got) != 1 || got[0].Message != "x" {
		t.Errorf("From(wrapped Problems) = %v", got)
	}
	if got := From(errors.New("plain")); len(got) != 1 || got[0].Message != "plain" || !got[0].IsError() {
		t.Errorf("From(plain) = %v", got)
	}
	if From(nil) != nil {
		t.Error("From(nil) != nil")
	}
}

// TestPrintable: what a terminal would act on in a name or value from an input is shown escaped,
// so a message can neither forge a line nor rewrite the terminal.
func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"widget-operator", "widget-operator"},
		{"widget\nerror: forged", `widget\nerror: forged`},
		{"widget\x1b[31mRED\x1b[0m", `widget\x1b[31mRED\x1b[0m`},
		{"stable\x00\x1b[2J", `stable\x00\x1b[2J`},
		{"abc\u202egnp.exe", `abc\u202egnp.exe`},
		{"caf\xe9", `caf\xe9`},
		{"café ✓ \ufffd", "café ✓ \ufffd"},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	p := Problem{Origin: Origin{File: "a.yaml"}, Object: "Subscription/ops/x\ny", Message: "channel \"a\x1b[2J\" not found\n | caret"}
	if got, want := p.Error(), `a.yaml: Subscription/ops/x\ny: channel "a\x1b[2J" not found ⏎ | caret`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestDecoding: a decoding error keeps short field names and drops every quoted value, in any
// quotes: the file may be any file (a kubeconfig bound as a catalog).
func TestDecoding(t *testing.T) {
	tests := []struct{ in, want string }{
		{`Object 'Kind' is missing in '{"password":"hunter2"}'`, "Object 'Kind' is missing in a value"},
		{`json: cannot unmarshal string "s3cr3t value" into Go struct field .spec.channel`, "json: cannot unmarshal string a value into Go struct field .spec.channel"},
		{"yaml: unmarshal errors:\n  line 3: field `token: abc` not found", "yaml: unmarshal errors: line 3: field a value not found"},
		{`key "kind" already set in map`, `key "kind" already set in map`},
	}
	for _, tt := range tests {
		if got := Decoding(errors.New(tt.in)); got != tt.want {
			t.Errorf("Decoding(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWantGot: decoding errors name JSON values, never Go types.
func TestWantGot(t *testing.T) {
	type entry struct{ Name string }
	tests := []struct {
		v    any
		want string
	}{
		{[]entry{}, "a list of objects"},
		{[]string{}, "a list of strings"},
		{[][]string{}, "a list of lists of strings"},
		{[]bool{}, "a list of booleans"},
		{map[string]int{}, "an object"},
		{"", "a string"},
		{int32(0), "a number"},
		{true, "true or false"},
		{[]byte{}, "a base64 string"},
		{new(string), "a string"},
	}
	for _, tt := range tests {
		if got := Want(reflect.TypeOf(tt.v)); got != tt.want {
			t.Errorf("Want(%T) = %q, want %q", tt.v, got, tt.want)
		}
	}
	for in, want := range map[string]string{"object": "an object", "array": "a list", "string": "a string", "bool": "true or false", "number 1e999": "a number"} {
		if got := Got(in); got != want {
			t.Errorf("Got(%q) = %q, want %q", in, got, want)
		}
	}
}

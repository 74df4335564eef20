//go:build diffrender

package diff_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/test/fixture"
)

var rerender = flag.Bool("rerender", false, "render testdata/<case>/input-before and input-after again into before.yaml and after.yaml")

// TestDiffFixturesRendered renders the inputs of the golden cases that have them (real bundles:
// examples/quickstart/catalog and ../shared/catalogs/operators) into their before.yaml and
// after.yaml, so the golden diffs compare real renders. It needs the diffrender build tag and
// -rerender (go test -tags diffrender -run TestDiffFixturesRendered -rerender ./diff):
// the fixtures are committed, so neither a renderer change nor a renderer being edited moves
// or breaks the diff goldens.
func TestDiffFixturesRendered(t *testing.T) {
	if !*rerender {
		t.Skip("run with -rerender to render the fixtures again")
	}
	fixture.Corpus(t) // the inputs name it at its conventional place, ../shared/catalogs
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "input-before"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, dir := range dirs {
		caseDir := filepath.Dir(dir)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			for _, side := range []string{"before", "after"} {
				out := renderInputs(t, filepath.Join(caseDir, "input-"+side))
				if err := os.WriteFile(filepath.Join(caseDir, side+".yaml"), out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// renderInputs renders an input directory as a YAML stream, reading from the whole file system.
func renderInputs(t *testing.T, dir string) []byte {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	req := pipeline.Request{Paths: []string{abs}, Root: fixture.SystemOptions(t).Root}
	out, err := pipeline.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("rendering %s: %v", dir, err)
	}
	var buf bytes.Buffer
	if err := emit.Stream(&buf, out.Objects); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

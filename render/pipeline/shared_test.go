package pipeline

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/olm-render/olm-render/schemas/rootfs"
)

// TestSharedLoadsOnce: two requests sharing their snapshots (a fleet's clusters) read a catalog
// both bind once, and the second renders from it (reading bundle manifests the first never
// read) after the first closed its root.
func TestSharedLoadsOnce(t *testing.T) {
	shared := NewShared()
	defer shared.Close()
	request := func() Request {
		root, err := rootfs.OpenDir(quickstart, rootfs.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		return Request{Paths: []string{filepath.Join(quickstart, "input")}, Root: root, Shared: shared}
	}
	req := request()
	first, err := Load(context.Background(), req)
	req.Close()
	if err != nil {
		t.Fatal(err)
	}
	req = request()
	out, err := Run(context.Background(), req)
	req.Close()
	if err != nil {
		t.Fatalf("the second request, after the first closed its root: %v", err)
	}
	if out.Set.Catalogs[0].Catalog != first.Catalogs[0].Catalog {
		t.Error("the second request loaded the catalog again")
	}
	if len(out.Objects) == 0 {
		t.Error("the second request rendered nothing")
	}
	if n := shared.Loads(); n != 1 {
		t.Errorf("%d snapshots loaded, want 1", n)
	}
}

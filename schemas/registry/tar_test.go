package registry_test

import (
	"archive/tar"
	"io"
	"testing"
)

// tarWriter writes test tarballs.
type tarWriter struct{ tw *tar.Writer }

func newTar(w io.Writer) *tarWriter { return &tarWriter{tw: tar.NewWriter(w)} }

// file writes a file of n zero bytes.
func (w *tarWriter) file(t *testing.T, name string, n int64) {
	t.Helper()
	if err := w.tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: n, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for left := n; left > 0; {
		chunk := min(left, int64(len(zeros)))
		if _, err := w.tw.Write(zeros[:chunk]); err != nil {
			t.Fatal(err)
		}
		left -= chunk
	}
}

func (w *tarWriter) close(t *testing.T) {
	t.Helper()
	if err := w.tw.Close(); err != nil {
		t.Fatal(err)
	}
}

package registry

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// keepFunc decides which files (names relative to the image root) an unpack keeps.
type keepFunc func(name string) bool

// unpacked is the content kept from an image's layers, applied in order.
type unpacked struct {
	limits Limits
	files  map[string][]byte
	kept   int64
	// read counts the bytes decompressed from all layers.
	read int64
}

// unpack applies the image's layers in order (with OCI whiteouts) and returns the files keep
// wants: regular files, and hard links to kept files. Symbolic links, devices and FIFOs are never
// kept; names that would leave the root are ignored.
func (c *Client) unpack(ctx context.Context, img *image, keep keepFunc) (map[string][]byte, error) {
	u := &unpacked{limits: c.limits, files: map[string][]byte{}}
	for _, layer := range img.manifest.LayerInfos() {
		if strings.Contains(layer.MediaType, "encrypted") {
			return nil, fmt.Errorf("%s: layer %s is encrypted", img.pinned, layer.Digest)
		}
		r, err := c.blob(ctx, img.src, layer.BlobInfo, c.limits.MaxLayerSize)
		if err != nil {
			return nil, err
		}
		err = u.apply(r, keep)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: layer %s: %w", img.pinned, layer.Digest, err)
		}
	}
	return u.files, nil
}

// apply applies one layer.
func (u *unpacked) apply(r io.Reader, keep keepFunc) error {
	plain, err := decompress(r, u)
	if err != nil {
		return err
	}
	defer plain.Close()
	tr := tar.NewReader(plain)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading layer: %w", err)
		}
		if err := u.entry(tr, h, keep); err != nil {
			return err
		}
	}
}

// entry applies one tar entry.
func (u *unpacked) entry(tr *tar.Reader, h *tar.Header, keep keepFunc) error {
	name, ok := cleanName(h.Name)
	if !ok {
		return nil
	}
	dir, base := path.Split(name)
	if strings.HasPrefix(base, ".wh.") {
		u.whiteout(path.Clean(dir), strings.TrimPrefix(base, ".wh."))
		return nil
	}
	u.remove(name)
	switch h.Typeflag {
	case tar.TypeReg:
		if keep(name) {
			return u.keepFile(name, tr, h.Size)
		}
	case tar.TypeLink:
		if target, ok := cleanName(h.Linkname); ok && u.files[target] != nil && keep(name) {
			return u.add(name, u.files[target])
		}
	}
	return nil
}

// whiteout applies an OCI whiteout: .wh..wh..opq empties the directory, .wh.<name> deletes name.
func (u *unpacked) whiteout(dir, name string) {
	if name == ".wh..opq" {
		for f := range u.files {
			if dir == "." || strings.HasPrefix(f, dir+"/") {
				delete(u.files, f)
			}
		}
		return
	}
	u.remove(path.Join(dir, name))
}

// remove deletes a file, or a directory's files.
func (u *unpacked) remove(name string) {
	delete(u.files, name)
	for f := range u.files {
		if strings.HasPrefix(f, name+"/") {
			delete(u.files, f)
		}
	}
}

func (u *unpacked) keepFile(name string, r io.Reader, size int64) error {
	if size > u.limits.MaxFileSize {
		return fmt.Errorf("%s: %d bytes, more than the limit of %d", name, size, u.limits.MaxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(r, u.limits.MaxFileSize+1))
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > u.limits.MaxFileSize {
		return fmt.Errorf("%s: more than the limit of %d bytes", name, u.limits.MaxFileSize)
	}
	return u.add(name, data)
}

func (u *unpacked) add(name string, data []byte) error {
	u.kept += int64(len(data))
	if u.kept > u.limits.MaxKeptSize {
		return fmt.Errorf("the files kept from the image are larger than the limit of %d bytes", u.limits.MaxKeptSize)
	}
	u.files[name] = data
	return nil
}

// cleanName turns a tar entry name into a name relative to the image root, refusing names that
// would leave it.
func cleanName(name string) (string, bool) {
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	if name == "" || !fs.ValidPath(name) {
		return "", false
	}
	return name, true
}

// limitedReader fails once the bytes read through it pass the image's unpacked limit.
type limitedReader struct {
	r io.ReadCloser
	u *unpacked
}

func (l *limitedReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.u.read += int64(n)
	if l.u.read > l.u.limits.MaxUnpackedSize {
		return n, fmt.Errorf("the image's layers decompress to more than the limit of %d bytes", l.u.limits.MaxUnpackedSize)
	}
	return n, err
}

func (l *limitedReader) Close() error { return l.r.Close() }

// decompress detects a layer's compression by its magic bytes (gzip, zstd, or none) and returns
// the decompressed stream, bounded by the image's unpacked limit. zstd's decoder is bounded too,
// so a hostile frame cannot claim gigabytes of window.
func decompress(r io.Reader, u *unpacked) (io.ReadCloser, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(4)
	var plain io.ReadCloser
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("reading gzip layer: %w", err)
		}
		plain = gz
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderMaxMemory(512<<20), zstd.WithDecoderMaxWindow(128<<20), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("reading zstd layer: %w", err)
		}
		plain = zr.IOReadCloser()
	default:
		plain = io.NopCloser(br)
	}
	return &limitedReader{r: plain, u: u}, nil
}

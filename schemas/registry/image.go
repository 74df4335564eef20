package registry

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/schemas/rootfs"
)

// Labels of operator images.
const (
	// IndexConfigsLabel names the directory of an index image that holds its file-based catalog.
	IndexConfigsLabel = "operators.operatorframework.io.index.configs.v1"
	// BundleManifestsLabel and BundleMetadataLabel name a bundle image's directories.
	BundleManifestsLabel = "operators.operatorframework.io.bundle.manifests.v1"
	BundleMetadataLabel  = "operators.operatorframework.io.bundle.metadata.v1"
)

// Index is an index image's file-based catalog.
type Index struct {
	// Pinned is the image the catalog was read from.
	Pinned Pinned
	// FS holds the catalog's files; Root is the catalog's directory in it.
	FS   *rootfs.Map
	Root string
}

// Index pulls an index image and returns its file-based catalog: the directory its
// operators.operatorframework.io.index.configs.v1 label names (/configs when it has none).
func (c *Client) Index(ctx context.Context, ref string) (*Index, error) {
	img, err := c.resolveImage(ctx, ref)
	if err != nil {
		return nil, err
	}
	defer img.src.Close()
	files, root, err := c.unpackIndex(ctx, img)
	if err != nil {
		return nil, err
	}
	fsys, err := rootfs.NewMap(img.pinned.String(), files)
	if err != nil {
		return nil, err
	}
	if _, err := fsys.Stat(root); err != nil {
		return nil, fmt.Errorf("%s: no file-based catalog at /%s (label %s)", img.pinned, root, IndexConfigsLabel)
	}
	return &Index{Pinned: img.pinned, FS: fsys, Root: root}, nil
}

func (c *Client) unpackIndex(ctx context.Context, img *image) (map[string][]byte, string, error) {
	labels, err := c.labels(ctx, img)
	if err != nil {
		return nil, "", err
	}
	root, ok := cleanName(cmp.Or(labels[IndexConfigsLabel], "/configs"))
	if !ok {
		return nil, "", fmt.Errorf("%s: invalid label %s=%q", img.pinned, IndexConfigsLabel, labels[IndexConfigsLabel])
	}
	files, err := c.unpack(ctx, img, under(root))
	return files, root, err
}

// BundleImage is a bundle image's files: manifests/ and metadata/ (wherever its labels put them).
type BundleImage struct {
	Pinned Pinned
	Labels map[string]string
	FS     *rootfs.Map
}

// Bundle pulls a registry+v1 bundle image and returns its manifests and metadata directories,
// moved to manifests/ and metadata/ when its labels put them elsewhere.
func (c *Client) Bundle(ctx context.Context, ref string) (*BundleImage, error) {
	img, err := c.resolveImage(ctx, ref)
	if err != nil {
		return nil, err
	}
	defer img.src.Close()
	labels, err := c.labels(ctx, img)
	if err != nil {
		return nil, err
	}
	dirs := map[string]string{}
	for label, want := range map[string]string{BundleManifestsLabel: "manifests", BundleMetadataLabel: "metadata"} {
		dir, ok := cleanName(cmp.Or(labels[label], want))
		if !ok {
			return nil, fmt.Errorf("%s: invalid label %s=%q", img.pinned, label, labels[label])
		}
		dirs[dir] = want
	}
	files, err := c.unpack(ctx, img, func(name string) bool { return movedTo(name, dirs) != "" })
	if err != nil {
		return nil, err
	}
	moved := make(map[string][]byte, len(files))
	for name, data := range files {
		moved[movedTo(name, dirs)] = data
	}
	fsys, err := rootfs.NewMap(img.pinned.String(), moved)
	if err != nil {
		return nil, err
	}
	return &BundleImage{Pinned: img.pinned, Labels: labels, FS: fsys}, nil
}

// movedTo returns where a file of a bundle image goes (manifests/..., metadata/...), or "".
func movedTo(name string, dirs map[string]string) string {
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		if rest, ok := strings.CutPrefix(name, dir+"/"); ok {
			return dirs[dir] + "/" + rest
		}
	}
	return ""
}

// labels reads the image's config labels.
func (c *Client) labels(ctx context.Context, img *image) (map[string]string, error) {
	info := img.manifest.ConfigInfo()
	if info.Digest == "" {
		return map[string]string{}, nil
	}
	r, err := c.blob(ctx, img.src, info, c.limits.MaxManifestSize)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var config struct {
		Config struct {
			Labels map[string]string `json:"Labels"`
		} `json:"config"`
	}
	data, err := io.ReadAll(io.LimitReader(r, c.limits.MaxManifestSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading config: %w", img.pinned, err)
	}
	if err := json.Unmarshal(data, &config); err != nil {
		return nil, fmt.Errorf("%s: invalid config: %w", img.pinned, err)
	}
	if config.Config.Labels == nil {
		return map[string]string{}, nil
	}
	return config.Config.Labels, nil
}

// under keeps the files below a directory.
func under(dir string) keepFunc {
	return func(name string) bool { return dir == "." || strings.HasPrefix(name, dir+"/") }
}

// Package catalog loads operator catalog snapshots into one model: packages, their channels
// (upgrade graphs of replaces, skips and skipRange edges) and bundles (properties, and the CSV
// and other manifests when the snapshot has them).
//
// # Formats
//
// Load detects the format of a path:
//   - a file-based catalog (FBC) directory or file: olm.package, olm.channel, olm.bundle and
//     olm.deprecations objects in JSON or YAML streams, honouring .indexignore files;
//   - registry+v1 bundle directories in the community catalog layout
//     (<package>/<version>/manifests, metadata/annotations.yaml, optional dependencies.yaml,
//     properties.yaml and ci.yaml, catalog-templates/), or one bundle directory. The tree is read
//     as the community pipeline reads it: a bundle below <version>/ (<version>/bundle/) is never
//     built, and a bundle the package's catalog template lists in no channel never published, so
//     both are left out (Catalog.LeftOut), with a warning naming the directory; a directory that
//     is no bundle directory and holds none fails catalog validate. None is skipped silently;
//   - the legacy package-manifest layout (<pkg>.package.yaml beside version folders).
//
// # Validation
//
// The model is validated as opm validates file-based catalogs (unique names, exactly one channel
// head, no replaces cycles, no stranded bundles, valid semver and skipRanges). Load reports every
// problem it finds, each naming its file and object, sorted.
package catalog

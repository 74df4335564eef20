// Package lock reads and writes olm-render.lock.yaml, the record of what is installed.
//
// In GitOps the repository is the installed state: the lock file holds, per namespace and
// Subscription, the bundle a render resolved (package, channel, name, version, catalog), a
// content digest of that bundle and the dependencies pulled in. A render with a lock treats the
// locked bundles as installed and renders exactly them, so it is reproducible after the catalog
// moved on; `olm-render upgrade` moves the lock one step along the upgrade graph, as OLM would.
//
// # Digest
//
// A bundle's digest is "sha256:" and the hex SHA-256 of a JSON array: the CSV, then every other
// manifest sorted by apiVersion, kind, namespace and name, each encoded as Go's encoding/json
// encodes it (map keys sorted). The CSV is decoded into operator-framework/api's type first, so
// the same bundle read from a bundle directory or from an FBC olm.bundle.object has the same
// digest. A bundle the catalog carries no manifests for but names a bundle image for by digest
// (an index of olm.csv.metadata, as every OpenShift index) has that image digest as its digest
// (digestOf: image): the image is content-addressed, so locking, resolving and upgrading never
// pull it; a render does, to read the manifests. A bundle image named by tag is pulled and its
// manifests digested; a bundle with neither manifests nor a bundle image to pull is digested over
// its properties (digestOf: metadata).
package lock

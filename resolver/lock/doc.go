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
// digest. A catalog that carries only metadata for a bundle (olm.csv.metadata) is digested over
// its properties instead, and the entry says so (digestOf: metadata).
package lock

// Package emit writes rendered objects: as one deterministic multi-document YAML stream, or as a
// directory of one file per object with a kustomization.yaml, written atomically.
//
// # Directories
//
// WriteDir writes every object to <namespace>/<kind>-<name>.yaml (cluster-scoped objects under
// _cluster/), lower-case, and a kustomization.yaml listing them. It builds the whole tree in a
// temporary directory beside the target and then moves it into place, so a failure leaves the
// target as it was. It records the files it wrote in .olm-render-files; on the next run it
// removes the files it wrote before and no longer writes, and never touches any other file.
package emit

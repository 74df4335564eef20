// Package emit writes rendered objects: as one deterministic multi-document YAML stream, or as a
// directory of one file per object with a kustomization.yaml, written atomically.
//
// # Directories
//
// WriteDir writes every object to <namespace>/<kind>-<name>.yaml (cluster-scoped objects under
// _cluster/), lower-case, and a kustomization.yaml listing them, through package outdir: it
// builds the whole tree in a temporary directory beside the target and then swaps it into place,
// so a failure leaves the target as it was, and it follows no symbolic link. It records the files
// it wrote in .olm-render-files; on the next run it removes the files it wrote before and no
// longer writes, and keeps every other file. PrepareDir stops short of the swap, so that the
// caller can commit another file (a lock file) together with the directory.
package emit

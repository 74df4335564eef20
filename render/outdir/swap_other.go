//go:build !linux

package outdir

import "errors"

// exchange reports errors.ErrUnsupported: only Linux can swap two directories in one step.
func exchange(a, b string) error { return errors.ErrUnsupported }

// renameNoReplace reports errors.ErrUnsupported: only Linux has renameat2.
func renameNoReplace(from, to string) error { return errors.ErrUnsupported }
